// Package rocksdb is Telha's production storage engine: storage.Engine on
// RocksDB through github.com/linxGnu/grocksdb, built against Debian's
// librocksdb-dev 7.8.3.
//
// The engine opens the 13 column families of storage.Families plus RocksDB's
// "default", each with the options of spec §8: a fixed 32-byte prefix
// extractor (the tenant scope), a memtable prefix bloom of a tenth of the
// memtable, a 10-bit bloom filter, whole-key filtering only on the three
// point-lookup families, and one block cache shared by all families.
//
// The binding is thin and easy to misuse; this package handles its traps
// once so that no caller meets them:
//
//   - A scan inside one scope uses prefix_same_as_start with an
//     iterate_upper_bound; the system full-family sweep, which crosses
//     scopes, uses total_order_seek instead. The two are never set together.
//   - RocksDB keeps a pointer to the upper bound for the iterator's life, so
//     the bound is pinned (runtime.Pinner) and its ReadOptions destroyed only
//     after the iterator.
//   - Iterator keys and values live in C memory that the next step frees:
//     each row is copied into one Go allocation before it is yielded.
//   - An iterator is destroyed exactly once, whether the loop ends by
//     exhaustion, break, error, a panic in its body, or by Close of the
//     engine or snapshot underneath it. Get results are always freed.
//   - Close cannot free RocksDB objects under a running call: every call into
//     RocksDB holds a read lock that Close takes exclusively. A scan drops the
//     lock while its loop body runs, so a body may write, or even close the
//     engine, without deadlock; the scan then ends with storage.ErrClosed.
//   - grocksdb's Options.Destroy frees a prefix extractor that the options
//     already own (a double free); the extractor is therefore set through an
//     options string, which leaves ownership with RocksDB alone.
//   - DeleteRangeCF needs an end key and refuses an empty range: a range
//     that runs to the end of its family ends at a string of 0xFF bytes
//     longer than any key, and an empty range deletes nothing.
//   - Every key is at least storage.ScopeLen bytes, so the prefix extractor
//     always sees a whole scope; the key authority guarantees it.
//
// Opening is checked before RocksDB sees the directory, so that a wrong path
// fails with a typed error instead of a crash or a half-created store: see
// ErrNotExist, ErrLocked, ErrNotStore, ErrMissingFamily and
// ErrUnexpectedFamily.
package rocksdb
