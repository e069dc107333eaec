// Package rocksdb is Telha's production storage engine: storage.Engine on
// RocksDB through github.com/linxGnu/grocksdb, built against Debian's
// librocksdb-dev 7.8.3.
//
// The engine opens the 13 column families of storage.Families plus RocksDB's
// "default", each with the options of docs/design.md, Engines: a fixed
// 32-byte prefix extractor (the tenant scope), a memtable prefix bloom of a
// tenth of the memtable, a 10-bit bloom filter, whole-key filtering only on
// the three point-lookup families, and one block cache shared by all
// families.
//
// The binding is thin and easy to misuse; this package handles its traps
// once so that no caller meets them:
//
//   - A scan inside one scope uses prefix_same_as_start with an
//     iterate_upper_bound; the system full-family sweep, which crosses
//     scopes, uses total_order_seek instead. The two are never set together.
//   - Scans do not go through grocksdb's Iterator, which costs four cgo
//     calls and four allocations a row: a small C helper (cursor.c) copies
//     as many rows as fit into a Go buffer per call. It needs the C handles
//     of the store, the families and the snapshots, which grocksdb keeps in
//     unexported fields; the engine reads them (native.go), checks the
//     wrappers' layout before Open runs, and never frees what grocksdb owns.
//   - RocksDB keeps a pointer to the upper bound for the iterator's life, and
//     the iterator points into its ReadOptions: the C cursor holds its own
//     copy of the bound, and frees the iterator before the options.
//   - Iterator keys and values live in C memory that the next step frees:
//     each row is copied into Go memory before it is yielded. The rows of
//     one batch share a buffer, each capped to its own bytes; the batches
//     of a ScanView share one buffer that the scan reuses.
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
//     always sees a whole scope; the key authority guarantees it, and every
//     write checks it again (storage.Mutation.Check).
//   - The C API ignores the status of a write-batch put: a value RocksDB
//     refuses (over 4 GiB) would vanish from an acknowledged batch. Values
//     over storage.MaxValueLen are refused first.
//   - The C API takes paths as C strings: a path with a NUL byte would name
//     the part before it. Open, Checkpoint and Repair refuse it
//     (ErrBadPath).
//   - Debian's librocksdb keeps its assertions, and a writer that failed
//     once aborts the process on its next write: on a full device the info
//     LOG was that writer. The LOG is kept to the option headers RocksDB
//     writes at open (see headerInfoLog); a full device is then
//     storage.ErrNoSpace everywhere.
//   - Recovery is tolerant of a torn record at the end of the log only
//     (kTolerateCorruptedTailRecords); a log cut short, or a MANIFEST cut
//     short, still recovers silently to an earlier state, and a read-write
//     open then deletes the table files the short MANIFEST no longer lists.
//     Open therefore reads the logs itself first (wal.go), and compares what
//     a read-only open recovers with the sync mark (mark.go) before it opens
//     the store for writing.
//   - RocksDB's repairer (rocksdb_repair_db) knows only the families it
//     finds in table files, and drops every logged batch that touches
//     another. Repair runs it only where the MANIFEST cannot be trusted; if
//     the store still opens (a table file that cannot be read), it flushes
//     the logs into table files first, and where it cannot, the report
//     counts what the repairer dropped.
//
// Opening is checked before RocksDB sees the directory, so that a wrong path
// fails with a typed error instead of a crash or a half-created store: see
// ErrBadPath, ErrNotExist, ErrLocked, ErrNotStore, ErrMissingFamily and
// ErrUnexpectedFamily; damage is storage.ErrCorrupt (a *CorruptError where
// the damaged file is known), and a full device storage.ErrNoSpace.
// Recovery from damage is Repair, an operator's explicit decision.
package rocksdb
