// Package funcvalue takes a generic unsafe helper, instantiated with the
// authority's types, as a value instead of calling it.
package funcvalue

import (
	"telha.dev/bypass/helpers"
	"telha.dev/core/storage"
)

// Forge reinterprets a key's memory through a func value.
func Forge(k storage.Key) *[96]byte {
	cast := helpers.Cast[storage.Key, [96]byte] // bypass
	return cast(&k)                             // bypass
}

// Back reinterprets bytes as a key, the instantiation inferred.
func Back(b *[96]byte) *storage.Key {
	var f func(*[96]byte) *storage.Key = helpers.Cast // bypass
	return f(b)
}
