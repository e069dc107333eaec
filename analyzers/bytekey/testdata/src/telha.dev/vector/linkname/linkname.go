// Package linkname reaches into the authority by linkname.
package linkname

import (
	_ "unsafe"

	"telha.dev/core/storage"
)

// want +2 `//go:linkname to telha.dev/core/storage.keyFromBytes reaches into the key authority; use its exported constructors and accessors`
//
//go:linkname keyFromBytes telha.dev/core/storage.keyFromBytes
func keyFromBytes(cf storage.ColumnFamily, b []byte) storage.Key

// want +2 `//go:linkname to telha.dev/core/storage.\(\*Key\).init reaches into the key authority`
//
//go:linkname keyInit telha.dev/core/storage.(*Key).init
func keyInit(k *storage.Key, b []byte)

// Outside the tree: not reported.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
