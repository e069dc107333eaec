// Package rocksdb is the RocksDB engine of the key authority: it may use
// the binding and the raw bytes of keys.
package rocksdb

import (
	"iter"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// Engine is a RocksDB engine.
type Engine struct {
	db *grocksdb.DB
}

var _ storage.Engine = (*Engine)(nil)

// Get returns the value stored under k.
func (e *Engine) Get(k storage.Key) ([]byte, error) {
	s, err := e.db.Get(grocksdb.NewDefaultReadOptions(), k.View())
	if err != nil {
		return nil, err
	}
	defer s.Free()
	return append([]byte(nil), s.Data()...), nil
}

// Scan yields the keys and values of r in order.
func (e *Engine) Scan(r storage.ScanRange) iter.Seq2[storage.Key, []byte] {
	return func(yield func(storage.Key, []byte) bool) {
		lower, upper := r.Bounds()
		ro := grocksdb.NewDefaultReadOptions()
		ro.SetIterateUpperBound(upper)
		it := e.db.NewIterator(ro)
		defer it.Close()
		for it.Seek(lower); it.Valid(); it.Next() {
			k, _ := storage.FromStoredBounds(r.Family(), it.Key().Data(), nil)
			_ = k
			if !yield(storage.Key{}, it.Value().Data()) {
				return
			}
		}
	}
}

// ScanFamily yields every key of a column family.
func (e *Engine) ScanFamily(cf storage.ColumnFamily) iter.Seq2[storage.Key, []byte] {
	return e.Scan(storage.ScanRange{})
}
