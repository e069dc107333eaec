// Package grocksdb is a stub of the RocksDB binding, shared by the testdata
// of the Telha analyzers.
package grocksdb

type Options struct{ CreateIfMissing bool }

type ReadOptions struct{ upper []byte }

type ColumnFamilyHandle struct{ name string }

type DB struct{ name string }

type Iterator struct{ pos int }

type Slice struct{ data []byte }

func NewDefaultOptions() *Options { return &Options{} }

func NewDefaultReadOptions() *ReadOptions { return &ReadOptions{} }

func (ro *ReadOptions) SetIterateUpperBound(key []byte) { ro.upper = key }

func OpenDb(opts *Options, name string) (*DB, error) { return &DB{name: name}, nil }

func (db *DB) NewIterator(ro *ReadOptions) *Iterator { return &Iterator{} }

func (db *DB) NewIteratorCF(ro *ReadOptions, cf *ColumnFamilyHandle) *Iterator { return &Iterator{} }

func (db *DB) NewIterators(ro *ReadOptions, cfs []*ColumnFamilyHandle) ([]*Iterator, error) {
	return make([]*Iterator, len(cfs)), nil
}

func (db *DB) Get(ro *ReadOptions, key []byte) (*Slice, error) { return &Slice{}, nil }

func (db *DB) Close() {}

func (it *Iterator) Seek(key []byte) {}

func (it *Iterator) SeekToFirst() {}

func (it *Iterator) Valid() bool { return false }

func (it *Iterator) Next() { it.pos++ }

func (it *Iterator) Key() *Slice { return &Slice{} }

func (it *Iterator) Value() *Slice { return &Slice{} }

func (it *Iterator) Close() {}

func (s *Slice) Data() []byte { return s.data }

func (s *Slice) Free() {}
