package rocksdb

import (
	"fmt"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// Conditional batches (storage.Batch.RequireAbsent, RequireValue). RocksDB
// checks conditions only in its transaction databases (TransactionDB,
// OptimisticTransactionDB), which open a store differently from the plain
// DB this engine runs on. A store has one process (its LOCK file), so a
// lock of that process is enough: every write holds Engine.writes shared,
// and a conditional batch holds it exclusively from the reads of its
// conditions to its write, so that no write lands between the check and
// the batch. A write without conditions pays one uncontended read lock,
// and waits only while a conditional batch is checked and written.

// writeConditional applies b, which has conditions, if they all hold: the
// log synced when durable or the sync policy says so.
func (e *Engine) writeConditional(b *storage.Batch, durable bool) error {
	if err := e.enter(nil); err != nil {
		return err
	}
	defer e.mu.RUnlock()
	e.writes.Lock()
	defer e.writes.Unlock()
	buf := keyBuffers.Get().(*[storage.MaxKeyLen]byte)
	defer keyBuffers.Put(buf)
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	if err := e.copyBatch(wb, b, buf[:0]); err != nil {
		return err
	}
	if err := e.holds(b, buf[:0]); err != nil {
		return err
	}
	wo, syncs := e.write, e.syncs
	if durable {
		wo, syncs = e.durable, true
	}
	return e.logged(syncs, uint64(b.Len()), func() error { return e.db.Write(wo, wb) })
}

// holds returns nil if every condition of b holds in the store, an error
// wrapping storage.ErrConflict naming the first that does not, or the
// error of a condition that fails its check. The keys pass through key, a
// buffer of length 0. The caller holds e.writes exclusively.
func (e *Engine) holds(b *storage.Batch, key []byte) error {
	for i, c := range b.Conditions() {
		if err := c.Check(); err != nil {
			return fmt.Errorf("condition %d: %w", i, err)
		}
		h, err := e.db.GetPinnedCF(e.read, e.families[c.Key.Family()], c.Key.AppendTo(key))
		if err != nil {
			return fmt.Errorf("condition %d: read %s: %w", i, c.Key, classify(err))
		}
		ok := c.Holds(h.Data(), h.Exists())
		if h.Exists() {
			h.Destroy()
		}
		if !ok {
			return fmt.Errorf("condition %d, %s: %w", i, c, storage.ErrConflict)
		}
	}
	return nil
}
