package storage

// WriteStamper is implemented by engines that can tell, without reading
// the store, whether anything has been written to it since an earlier
// moment: every write that any process applies to the store changes the
// stamp (it only grows), and nothing else does.
//
// Callers that keep what they read from the store in memory (the vector
// index, a model's definition) compare stamps to skip the reads that
// check whether another writer moved the store: the stamp read before a
// check, equal to the stamp read now, proves that nothing was written in
// between, so the check would find what it found then.
//
// An engine implements it only if the stamp covers every writer. RocksDB
// does (one process holds a store's LOCK, and its latest sequence number
// counts every write of that process); MemoryEngine does; the etcd
// engine does not (other members write, and knowing their latest revision
// takes a round trip, which is what the check costs anyway).
type WriteStamper interface {
	// WriteStamp returns the current stamp; ErrNotOpen or ErrClosed for
	// an engine that is not open.
	WriteStamp() (uint64, error)
}

// WriteStamp returns the write stamp of r and true, or false if r is not
// a WriteStamper or could not give one: the caller must then read the
// store to know what changed.
func WriteStamp(r Reader) (uint64, bool) {
	ws, ok := r.(WriteStamper)
	if !ok {
		return 0, false
	}
	s, err := ws.WriteStamp()
	return s, err == nil
}
