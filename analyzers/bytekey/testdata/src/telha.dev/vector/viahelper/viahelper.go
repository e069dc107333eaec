// Package viahelper reaches a rawbytes method through a generic helper.
package viahelper

import (
	"telha.dev/core/storage"
	"telha.dev/vector/keyhelper"
)

// View gets the raw bytes of a key without calling View itself.
func View(k storage.Key) []byte {
	return keyhelper.ViewOf(&k) // want `keyhelper.ViewOf instantiated with \*storage.Key calls rawbytes-restricted storage.Key.View through its constraint outside the key authority; use Key.Bytes, which returns a copy`
}
