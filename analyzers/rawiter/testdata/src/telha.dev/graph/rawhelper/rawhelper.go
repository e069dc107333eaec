// Package rawhelper hands raw engine values to packages that do not import
// the binding. It is outside the authority, so it is reported too.
package rawhelper

import "github.com/linxGnu/grocksdb" // want `import of raw engine binding`

// Iter is an alias of the raw iterator.
type Iter = *grocksdb.Iterator // want `grocksdb.Iterator`

// Handle wraps a raw iterator.
type Handle struct {
	It *grocksdb.Iterator // want `grocksdb.Iterator`
}

// DB returns a database.
func DB() *grocksdb.DB { // want `grocksdb.DB`
	db, _ := grocksdb.OpenDb(nil, "") // want `grocksdb.OpenDb`
	return db
}

// Open returns an iterator over db.
func Open(db *grocksdb.DB) *grocksdb.Iterator { // want `grocksdb.DB` `grocksdb.Iterator`
	return db.NewIterator(nil) // want `grocksdb.DB.NewIterator`
}

// Any returns an iterator as an interface value.
func Any() any {
	return Open(DB())
}

// Wrapped embeds the raw iterator in a type of its own.
type Wrapped struct {
	*grocksdb.Iterator // want `grocksdb.Iterator`
}
