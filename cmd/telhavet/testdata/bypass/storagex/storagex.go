// Package storagex has a path that begins like the authority's.
package storagex

import "telha.dev/core/storage"

// Raw returns a key's bytes without a copy.
func Raw(k *storage.Key) []byte {
	return k.View() // bypass
}
