// Package rawscan is a subsystem that iterates the engine directly.
package rawscan

import (
	"fmt"

	"github.com/linxGnu/grocksdb" // want `import of raw engine binding "github.com/linxGnu/grocksdb" outside the key authority; use the storage.Engine Scan API with a storage.ScanRange`
)

// note mentions grocksdb.NewIterator in a string: not a use.
const note = "grocksdb.NewIterator is for the engine only"

// Dump prints every key and value of the default family.
func Dump(db *grocksdb.DB) { // want `raw engine binding grocksdb.DB used outside the key authority; use the storage.Engine Scan API with a storage.ScanRange`
	ro := grocksdb.NewDefaultReadOptions()        // want `raw engine binding grocksdb.NewDefaultReadOptions used outside the key authority`
	it := db.NewIterator(ro)                      // want `raw engine binding grocksdb.DB.NewIterator used outside the key authority`
	defer it.Close()                              // want `grocksdb.Iterator.Close`
	for it.SeekToFirst(); it.Valid(); it.Next() { // want `grocksdb.Iterator.SeekToFirst` `grocksdb.Iterator.Valid` `grocksdb.Iterator.Next`
		k := it.Key()         // want `grocksdb.Iterator.Key`
		fmt.Println(k.Data()) // want `grocksdb.Slice.Data`
	}
}

// Family iterates one column family.
func Family(db *grocksdb.DB, cf *grocksdb.ColumnFamilyHandle) { // want `grocksdb.DB` `grocksdb.ColumnFamilyHandle`
	db.NewIteratorCF(nil, cf).Close()   // want `grocksdb.DB.NewIteratorCF` `grocksdb.Iterator.Close`
	its, _ := db.NewIterators(nil, nil) // want `grocksdb.DB.NewIterators`
	_ = its
}

// MethodValue takes the iterator constructor as a value.
func MethodValue(db *grocksdb.DB) func(*grocksdb.ReadOptions) *grocksdb.Iterator { // want `grocksdb.DB` `grocksdb.ReadOptions` `grocksdb.Iterator`
	f := db.NewIterator // want `grocksdb.DB.NewIterator`
	return f
}

// handle embeds the binding's database.
type handle struct {
	*grocksdb.DB // want `raw engine binding grocksdb.DB used`
}

// Iter is an alias of the raw iterator.
type Iter = grocksdb.Iterator // want `raw engine binding grocksdb.Iterator used`

func promoted(h handle) *Iter {
	return h.NewIterator(nil) // want `grocksdb.DB.NewIterator`
}
