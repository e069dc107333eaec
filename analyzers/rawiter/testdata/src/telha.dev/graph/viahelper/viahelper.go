// Package viahelper gets raw iterators through rawhelper without importing
// the binding.
package viahelper

import "telha.dev/graph/rawhelper"

// Count counts the keys through a returned iterator.
func Count() (n int) {
	it := rawhelper.Open(rawhelper.DB())          // want `rawhelper.Open carries raw engine binding grocksdb.DB outside the key authority; use the storage.Engine Scan API with a storage.ScanRange` `rawhelper.DB carries raw engine binding grocksdb.DB`
	defer it.Close()                              // want `grocksdb.Iterator.Close`
	for it.SeekToFirst(); it.Valid(); it.Next() { // want `SeekToFirst` `Valid` `Next`
		n++
	}
	return n
}

// Assert gets the iterator as an any and asserts it to the helper's alias.
func Assert() {
	v := rawhelper.Any()
	it := v.(rawhelper.Iter) // want `rawhelper.Iter carries raw engine binding grocksdb.Iterator`
	it.Close()               // want `grocksdb.Iterator.Close`
}

// Field reads the iterator out of a helper type.
func Field(h rawhelper.Handle) {
	h.It.Next() // want `rawhelper.It carries raw engine binding grocksdb.Iterator` `grocksdb.Iterator.Next`
}

// Promoted calls a method promoted from an embedded raw iterator.
func Promoted(w rawhelper.Wrapped) bool {
	return w.Valid() // want `grocksdb.Iterator.Valid`
}
