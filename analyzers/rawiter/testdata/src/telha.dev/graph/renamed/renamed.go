// Package renamed imports the binding under another name.
package renamed

import rdb "github.com/linxGnu/grocksdb" // want `import of raw engine binding "github.com/linxGnu/grocksdb"`

// Count counts the keys.
func Count(db *rdb.DB) (n int) { // want `raw engine binding grocksdb.DB used`
	it := db.NewIterator(rdb.NewDefaultReadOptions()) // want `grocksdb.DB.NewIterator` `grocksdb.NewDefaultReadOptions`
	for it.SeekToFirst(); it.Valid(); it.Next() {     // want `SeekToFirst` `Valid` `Next`
		n++
	}
	return n
}
