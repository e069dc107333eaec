// Package unsafes forges and reads keys with unsafe.
package unsafes

import (
	"unsafe" // bypass

	"telha.dev/bypass/helpers"
	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
)

// Forge casts bytes to a key.
func Forge(buf *[96]byte) *storage.Key {
	return (*storage.Key)(unsafe.Pointer(buf)) // bypass
}

// Ranges casts bytes to an array of ranges.
func Ranges(buf []byte) *[2]storage.ScanRange {
	return (*[2]storage.ScanRange)(unsafe.Pointer(&buf[0])) // bypass
}

// lookalike has a key's layout.
type lookalike struct {
	b      [storage.MaxKeyLen]byte
	family storage.ColumnFamily
	n      uint8
}

// Rewrite rewrites a key through a look-alike struct.
func Rewrite(k *storage.Key) {
	l := (*lookalike)(unsafe.Pointer(k)) // bypass
	l.b[0]++
}

// Keys reads the bytes of a slice of keys.
func Keys(keys []storage.Key) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(keys))), 8) // bypass
}

// Engine reads an engine's memory.
func Engine(e *rocksdb.Engine) uintptr {
	return uintptr(unsafe.Pointer(e)) // bypass
}

// Helpers cast through a generic helper of another package.
func Helpers(k storage.Key, s storage.TenantScope) ([]byte, *[32]byte) {
	return helpers.Bytes(&k), helpers.Cast[storage.TenantScope, [32]byte](&s) // bypass
}

// Method calls a restricted method by name through a helper.
func Method(k storage.Key) {
	helpers.Method(&k, "View") // bypass
}

// Size is read without unsafe.Pointer. Near miss.
func Size() uintptr {
	var s storage.TenantScope
	return unsafe.Sizeof(s)
}
