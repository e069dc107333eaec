// Package clean uses the engine the sanctioned way, and names of its own
// that match names of the binding. Nothing here is reported.
package clean

import "telha.dev/core/storage"

// Iterator is a local type named like the binding's.
type Iterator struct{ n int }

// NewIterator is a local function named like the binding's.
func NewIterator() *Iterator { return &Iterator{} }

// DB is a local type with a NewIterator method.
type DB struct{}

// NewIterator is a local method named like the binding's.
func (DB) NewIterator() *Iterator { return NewIterator() }

// Count scans a node's history through the engine: grocksdb.NewIterator is
// never called here (a mention in a comment is not a use).
func Count(e storage.Engine, scope storage.TenantScope, node [16]byte) (n int) {
	for range e.Scan(storage.NodeHistory(scope, node)) {
		n++
	}
	_ = "github.com/linxGnu/grocksdb.NewIterator"
	return n + DB{}.NewIterator().n
}
