package rocksdb

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// Engine is a storage.Engine on one RocksDB store. It is safe for concurrent
// use.
//
// Every call into RocksDB holds mu for reading; Close and Snapshot.Close,
// which free C objects, hold it for writing, so nothing is freed while a
// call uses it. A scan holds mu only while it steps its iterator, not while
// its loop body runs: the body may call the engine, or close it.
type Engine struct {
	path     string
	db       *grocksdb.DB
	handles  []*grocksdb.ColumnFamilyHandle // every open family, for Close
	families []*grocksdb.ColumnFamilyHandle // indexed by storage.ColumnFamily
	read     *grocksdb.ReadOptions
	write    *grocksdb.WriteOptions // the configured sync policy
	durable  *grocksdb.WriteOptions // always syncs the WAL

	mu     sync.RWMutex
	closed bool

	// live guards the registries of open cursors and snapshots, which Close
	// releases. Entries are added and removed under mu's read lock, so
	// several goroutines may do it at once.
	live      sync.Mutex
	cursors   map[*cursor]struct{}
	snapshots map[*Snapshot]struct{}
}

var _ storage.Engine = (*Engine)(nil)

// newEngine wraps an open store. handles are in open order: "default", then
// families.
func newEngine(cfg Config, db *grocksdb.DB, handles []*grocksdb.ColumnFamilyHandle, families []storage.ColumnFamily) *Engine {
	e := &Engine{
		path:      cfg.Path,
		db:        db,
		handles:   handles,
		families:  make([]*grocksdb.ColumnFamilyHandle, slices.Max(families)+1),
		read:      grocksdb.NewDefaultReadOptions(),
		write:     grocksdb.NewDefaultWriteOptions(),
		durable:   grocksdb.NewDefaultWriteOptions(),
		cursors:   make(map[*cursor]struct{}),
		snapshots: make(map[*Snapshot]struct{}),
	}
	for i, cf := range families {
		e.families[cf] = handles[i+1]
	}
	e.write.SetSync(cfg.SyncWrites)
	e.durable.SetSync(true)
	return e
}

// enter takes mu for reading around one call into RocksDB, or returns
// storage.ErrClosed if the engine, or snapshot s when not nil, is closed.
// The caller releases mu with e.mu.RUnlock.
func (e *Engine) enter(s *Snapshot) error {
	e.mu.RLock()
	if e.closed || (s != nil && s.closed) {
		e.mu.RUnlock()
		return storage.ErrClosed
	}
	return nil
}

// Put stores value at k under the configured sync policy.
func (e *Engine) Put(k storage.Key, value []byte) error {
	if !k.Valid() {
		return storage.ErrInvalidKey
	}
	if err := e.enter(nil); err != nil {
		return err
	}
	defer e.mu.RUnlock()
	if err := e.db.PutCF(e.write, e.families[k.Family()], k.View(), value); err != nil {
		return fmt.Errorf("put %s: %w", k, err)
	}
	return nil
}

// Delete removes k under the configured sync policy.
func (e *Engine) Delete(k storage.Key) error {
	if !k.Valid() {
		return storage.ErrInvalidKey
	}
	if err := e.enter(nil); err != nil {
		return err
	}
	defer e.mu.RUnlock()
	if err := e.db.DeleteCF(e.write, e.families[k.Family()], k.View()); err != nil {
		return fmt.Errorf("delete %s: %w", k, err)
	}
	return nil
}

// Write applies b atomically, as one RocksDB write batch, under the
// configured sync policy. A poisoned batch (b.Err() != nil) is refused
// whole.
func (e *Engine) Write(b *storage.Batch) error { return e.apply(e.write, b) }

// WriteDurable applies b atomically and returns once the write-ahead log is
// synced, whatever Config.SyncWrites says.
func (e *Engine) WriteDurable(b *storage.Batch) error { return e.apply(e.durable, b) }

func (e *Engine) apply(wo *grocksdb.WriteOptions, b *storage.Batch) error {
	if err := b.Err(); err != nil {
		return err
	}
	if err := e.enter(nil); err != nil {
		return err
	}
	defer e.mu.RUnlock()
	wb := grocksdb.NewWriteBatch()
	defer wb.Destroy()
	ms := b.Mutations()
	for i := range ms {
		m := &ms[i]
		h := e.families[m.Key.Family()]
		switch m.Kind {
		case storage.MutationPut:
			wb.PutCF(h, m.Key.View(), m.Value)
		case storage.MutationDelete:
			wb.DeleteCF(h, m.Key.View())
		default:
			return fmt.Errorf("write batch: mutation %d of unknown kind %d", i, m.Kind)
		}
	}
	if err := e.db.Write(wo, wb); err != nil {
		return fmt.Errorf("write batch of %d: %w", len(ms), err)
	}
	return nil
}

// familyEnd is the exclusive end of a DeleteRange that runs to the end of
// its family (a range whose upper bound is nil). No key is longer than
// storage.MaxKeyLen, so this string of 0xFF bytes sorts after every key,
// including a key of all 0xFF bytes, which is a proper prefix of it.
var familyEnd = bytes.Repeat([]byte{0xFF}, storage.MaxKeyLen+1)

// DeleteRange removes every key of r with one range tombstone
// (DeleteRangeCF), under the configured sync policy.
func (e *Engine) DeleteRange(r storage.ScanRange) error {
	if !r.Valid() {
		return storage.ErrInvalidRange
	}
	if err := e.enter(nil); err != nil {
		return err
	}
	defer e.mu.RUnlock()
	lower, upper := r.Bounds()
	switch {
	case upper == nil:
		upper = familyEnd
	case bytes.Compare(lower, upper) >= 0:
		// The constructors build no empty range today; should one appear,
		// deleting it is a no-op, as in MemoryEngine, where RocksDB would
		// fail with "end key comes before start key".
		return nil
	}
	if err := e.db.DeleteRangeCF(e.write, e.families[r.Family()], lower, upper); err != nil {
		return fmt.Errorf("delete range %s: %w", r, err)
	}
	return nil
}

// Close releases the store and its lock. It waits for calls in progress,
// ends scans in progress (they yield storage.ErrClosed at their next row),
// and releases open snapshots. Later calls, Close included, return
// storage.ErrClosed and touch nothing.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return fmt.Errorf("close %s: %w", e.path, storage.ErrClosed)
	}
	e.closed = true
	e.live.Lock()
	for c := range e.cursors {
		c.release()
	}
	clear(e.cursors)
	for s := range e.snapshots {
		s.release()
	}
	clear(e.snapshots)
	e.live.Unlock()
	// RocksDB requires the family handles to go before the store.
	for _, h := range e.handles {
		h.Destroy()
	}
	e.db.Close()
	e.read.Destroy()
	e.write.Destroy()
	e.durable.Destroy()
	return nil
}
