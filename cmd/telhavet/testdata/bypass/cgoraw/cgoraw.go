// Package cgoraw opens RocksDB through its C API, beside the engine.
package cgoraw

// /* bypass-next */
// #cgo LDFLAGS: -lrocksdb
// #include <stdlib.h>
// #include <rocksdb/c.h> // bypass
//
// static rocksdb_t* open_db(const char* path, char** err) { // bypass
// 	return rocksdb_open(rocksdb_options_create(), path, err); // bypass
// }
import "C" // bypass

import "unsafe" // bypass

// Open opens a store's files directly.
func Open(path string) unsafe.Pointer {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var errp *C.char
	opts := C.rocksdb_options_create()       // bypass
	db := C.rocksdb_open(opts, cpath, &errp) // bypass
	if db != nil {
		return unsafe.Pointer(db)
	}
	return unsafe.Pointer(C.open_db(cpath, &errp)) // bypass
}
