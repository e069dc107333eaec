// Package cgoclean uses cgo for arithmetic; its C comment mentions RocksDB
// and its metrics label names the engine: only the cgo capability is
// reported, not the comment, the label or the C call.
package cgoclean

// /* Unlike the rocksdb engine, this needs no library: rocksdb_open is not
//    called here. */
// static int twice(int x) { return 2 * x; }
import "C" // bypass

// Label names the engine's metrics series.
const Label = "rocksdb"

// Twice doubles x in C.
func Twice(x int) int { return int(C.twice(C.int(x))) }
