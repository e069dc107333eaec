// Package linkraw pulls in symbols of a binding and of the authority by
// //go:linkname, importing neither.
package linkraw

import _ "unsafe"

// bypass-next
//
//go:linkname readOptions github.com/linxGnu/grocksdb.NewDefaultReadOptions
func readOptions() uintptr // bypass

// bypass-next
//
//go:linkname successor telha.dev/core/storage.successor
func successor(dst, b []byte) ([]byte, bool)

// A runtime symbol, without the authority's types: a capability all the
// same.
//
// bypass-next
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// Use keeps them.
var Use = []any{readOptions, successor, nanotime}
