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
// and the conditions of a batch are checked, and the batch written, under
// it held exclusively, so that no write lands between the check and the
// batch. A write without conditions pays one uncontended read lock.
//
// Write checks and writes a conditional batch alone, under the exclusive
// lock: no log sync, a few microseconds. WriteDurable commits it in a
// group like any other (group.go): the group's leader takes the exclusive
// lock for the group's write and its log sync when the group holds a
// conditional batch, checks each conditional batch against the store, and
// writes the ones that hold first, so that each is checked against the
// state just before it. A conditional batch whose conditions name a key
// that an earlier one of the group writes waits for the next group, where
// it is checked against the store that holds the earlier one. Meanwhile
// writes without a sync wait for the group's sync; durable ones queue for
// the next group anyway.

// writeConditional applies b, which has conditions, if they all hold,
// under the sync policy; the caller has entered the engine.
func (e *Engine) writeConditional(b *storage.Batch) error {
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
	return e.logged(e.syncs, uint64(b.Len()), func() error { return e.db.Write(e.write, wb) })
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

// written is what the conditional batches of a group placed so far write:
// a later conditional batch whose conditions name a key of it waits for
// the next group.
type written struct {
	keys   map[storage.Key]struct{}
	ranges []storage.ScanRange
}

// add records the keys and ranges b writes.
func (wr *written) add(b *storage.Batch) {
	if wr.keys == nil {
		wr.keys = make(map[storage.Key]struct{})
	}
	for _, m := range b.All() {
		if m.Kind == storage.MutationDeleteRange {
			wr.ranges = append(wr.ranges, m.Range)
		} else {
			wr.keys[m.Key] = struct{}{}
		}
	}
}

// names reports whether a condition of b names a key that wr writes.
func (wr *written) names(b *storage.Batch) bool {
	for _, c := range b.Conditions() {
		if _, ok := wr.keys[c.Key]; ok {
			return true
		}
		for _, r := range wr.ranges {
			if r.Contains(c.Key) {
				return true
			}
		}
	}
	return false
}
