// Package dotimport dot-imports the binding.
package dotimport

import . "github.com/linxGnu/grocksdb" // want `import of raw engine binding "github.com/linxGnu/grocksdb"`

// Open opens the database and an iterator.
func Open(path string) *Iterator { // want `raw engine binding grocksdb.Iterator used`
	db, _ := OpenDb(NewDefaultOptions(), path)     // want `grocksdb.OpenDb` `grocksdb.NewDefaultOptions`
	return db.NewIterator(NewDefaultReadOptions()) // want `grocksdb.DB.NewIterator` `grocksdb.NewDefaultReadOptions`
}
