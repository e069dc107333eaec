// Package rawiter defines an Analyzer that reports uses of raw storage
// engine bindings, above all their iterators, outside the key authority.
//
// # Analyzer rawiter
//
// rawiter: report raw engine bindings and iterators outside the key authority
//
// Only the key authority (the package trees of authority.conf) may use a raw
// storage engine binding (the "binding" lines of authority.conf:
// github.com/linxGnu/grocksdb, etcd's client, server and storage) or an
// engine's C library (the "clib" lines: rocksdb). A raw iterator sees every
// tenant's keys, keeps C memory alive and crashes the process when closed
// twice; a scan through it bypasses the scope that the authority puts on
// every range.
//
// Outside the authority, rawiter reports:
//   - every import of a binding package, renamed, dot or blank;
//   - every reference to a declaration of a binding package: its types,
//     functions such as NewIterator, NewIteratorCF and NewIterators, method
//     calls and method values such as db.NewIterator, fields, and the types
//     named in embedded fields, aliases and generic instantiations;
//   - every reference to a declaration of another package whose declared
//     type carries a binding type, looking through the named types of
//     other packages, such as a helper function returning an
//     *grocksdb.Iterator, an alias of it used in a type assertion, or a
//     struct that holds one, so that a binding value is caught even where
//     the binding is never imported;
//   - every instantiation of a generic function or type whose constraint is
//     satisfied by methods of a binding type;
//   - a //go:linkname directive that names a declaration of a binding
//     (Go assembly cannot name one: its symbols cannot spell an import path
//     with a dot);
//   - cgo that reaches an engine's C library: a preamble line that mentions
//     it (#include <rocksdb/c.h>, #cgo LDFLAGS: -lrocksdb, C code calling
//     rocksdb_open), a Go use of a C name that contains it
//     (C.rocksdb_open, *C.rocksdb_t) or that the package's own C code
//     defines when that code mentions it, and a C, C++, header, assembly
//     or object file of the package that mentions it.
//
// Use the storage.Engine Scan API with a storage.ScanRange from the key
// constructors instead: the engine opens, bounds and closes the iterator.
package rawiter
