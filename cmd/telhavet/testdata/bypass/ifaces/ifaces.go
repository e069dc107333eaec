// Package ifaces reaches restricted methods through interfaces of its own:
// a value of the authority put into one is reported, not the interface,
// which may merely share a method's name, nor an assertion of a value of
// unknown type to it.
package ifaces

import (
	"fmt"

	"telha.dev/core/storage"
)

type viewer interface {
	View() []byte
}

type sweeper interface {
	FullFamily(storage.ColumnFamily) storage.ScanRange
}

// Convert converts a key to the local interface.
func Convert(k storage.Key) []byte {
	var v viewer = &k // bypass
	return v.View()
}

// Assert asserts a value of unknown type to the local interface.
func Assert(x any) storage.ScanRange {
	if s, ok := x.(sweeper); ok {
		return s.FullFamily(storage.Jobs)
	}
	var r storage.ScanRange
	if b, ok := x.(interface{ Bounds() ([]byte, []byte) }); ok {
		lower, upper := b.Bounds()
		r, _ = storage.FromStoredBounds(storage.Jobs, lower, upper) // bypass
	}
	return r
}

// Stringer converts a key to an interface of unrestricted methods, and a
// typed nil to check it. Near miss.
func Stringer(k storage.Key) fmt.Stringer {
	var _ fmt.Stringer = (*storage.Key)(nil)
	return k
}
