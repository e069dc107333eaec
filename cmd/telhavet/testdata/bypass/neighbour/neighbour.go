// Package neighbour moves a pointer from a neighbouring field into a key,
// never naming the key's type where it writes.
package neighbour

import (
	"unsafe" // bypass

	"telha.dev/core/storage"
)

type holder struct {
	before uint64
	key    storage.Key
}

// Poke writes the first byte of the key behind before.
func Poke(h *holder) {
	p := (*byte)(unsafe.Add(unsafe.Pointer(&h.before), unsafe.Sizeof(h.before))) // bypass
	*p = 0
}

// Key is the key.
func (h *holder) Key() storage.Key { return h.key }
