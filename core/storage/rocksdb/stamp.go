package rocksdb

import "telha.dev/core/storage"

var _ storage.WriteStamper = (*Engine)(nil)

// WriteStamp returns RocksDB's latest sequence number, which every write
// advances (a Put, a Delete, each mutation of a batch, a DeleteRange);
// the engine ingests no files, whose sequence numbers could be left
// unchanged. No other process can write the store while this one holds
// its LOCK; a read-only engine sees no writes at all.
func (e *Engine) WriteStamp() (uint64, error) {
	if err := e.enter(nil); err != nil {
		return 0, err
	}
	defer e.mu.RUnlock()
	return e.db.GetLatestSequenceNumber(), nil
}
