package rocksdb

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// Engine is a storage.Engine on one RocksDB store. It is safe for concurrent
// use. Make one with Open: the zero Engine, and a nil *Engine, refuse every
// call with storage.ErrNotOpen.
//
// Every call into RocksDB holds mu for reading; Close and Snapshot.Close,
// which free C objects, hold it for writing, so nothing is freed while a
// call uses it. A scan holds mu only while it steps its iterator, not while
// its loop body runs: the body may call the engine, or close it.
type Engine struct {
	path     string
	db       *grocksdb.DB                   // nil only in the zero Engine
	handles  []*grocksdb.ColumnFamilyHandle // every open family, for Close
	families []*grocksdb.ColumnFamilyHandle // indexed by storage.ColumnFamily
	native   handles                        // their C handles, for the scan cursor
	read     *grocksdb.ReadOptions
	write    *grocksdb.WriteOptions // the configured sync policy
	durable  *grocksdb.WriteOptions // always syncs the WAL
	syncs    bool                   // write syncs, as durable does
	mark     *syncMark              // nil when readOnly
	readOnly bool                   // Config.ReadOnly: every write is ErrReadOnly

	group groupCommit // of WriteDurable

	// writes is held shared by every write, and exclusively from the
	// checks of a conditional batch to its write (conditional.go). It is
	// taken after mu.
	writes sync.RWMutex

	mu sync.RWMutex
	// closed is set under mu held for writing, by Close; it is atomic so
	// that a scan can check it between the rows of a batch without mu.
	closed atomic.Bool

	// live guards the registries of open cursors and snapshots, which Close
	// releases. Entries are added and removed under mu's read lock, so
	// several goroutines may do it at once.
	live      sync.Mutex
	cursors   map[*cursor]struct{}
	snapshots map[*Snapshot]struct{}
}

var (
	_ storage.Engine      = (*Engine)(nil)
	_ storage.ViewScanner = (*Engine)(nil)
)

// newEngine wraps an open store. handles are in open order: "default", then
// families.
func newEngine(cfg Config, db *grocksdb.DB, handles []*grocksdb.ColumnFamilyHandle, families []storage.ColumnFamily, mark *syncMark) *Engine {
	e := &Engine{
		path:      cfg.Path,
		db:        db,
		handles:   handles,
		families:  make([]*grocksdb.ColumnFamilyHandle, slices.Max(families)+1),
		read:      grocksdb.NewDefaultReadOptions(),
		write:     grocksdb.NewDefaultWriteOptions(),
		durable:   grocksdb.NewDefaultWriteOptions(),
		syncs:     cfg.SyncWrites,
		mark:      mark,
		readOnly:  cfg.ReadOnly,
		cursors:   make(map[*cursor]struct{}),
		snapshots: make(map[*Snapshot]struct{}),
		group:     groupCommit{arrived: make(chan struct{}, 1)},
	}
	for i, cf := range families {
		e.families[cf] = handles[i+1]
	}
	e.native = nativeHandles(db, e.families)
	e.write.SetSync(cfg.SyncWrites)
	e.durable.SetSync(true)
	return e
}

// enter takes mu for reading around one call into RocksDB, or returns
// storage.ErrNotOpen for an engine Open did not make, storage.ErrClosed if
// the engine, or snapshot s when not nil, is closed. The caller releases mu
// with e.mu.RUnlock.
func (e *Engine) enter(s *Snapshot) error {
	if e == nil || e.db == nil {
		return storage.ErrNotOpen
	}
	e.mu.RLock()
	if e.closedUnder(s) {
		e.mu.RUnlock()
		return storage.ErrClosed
	}
	return nil
}

// enterWrite is enter for a call that writes to the store: it also
// returns ErrReadOnly for an engine opened read-only.
func (e *Engine) enterWrite() error {
	if err := e.enter(nil); err != nil {
		return err
	}
	if e.readOnly {
		e.mu.RUnlock()
		return ErrReadOnly
	}
	return nil
}

// Put stores value at k under the configured sync policy.
func (e *Engine) Put(k storage.Key, value []byte) error {
	m := storage.Mutation{Kind: storage.MutationPut, Key: k, Value: value}
	if err := m.Check(); err != nil {
		return fmt.Errorf("put: %w", err)
	}
	err := e.commit(func(wo *grocksdb.WriteOptions, key []byte) error {
		return e.db.PutCF(wo, e.families[k.Family()], k.AppendTo(key), value)
	}, 1)
	if err != nil {
		return fmt.Errorf("put %s: %w", k, err)
	}
	return nil
}

// Delete removes k under the configured sync policy.
func (e *Engine) Delete(k storage.Key) error {
	if !k.Valid() {
		return fmt.Errorf("delete: %w", storage.ErrInvalidKey)
	}
	err := e.commit(func(wo *grocksdb.WriteOptions, key []byte) error {
		return e.db.DeleteCF(wo, e.families[k.Family()], k.AppendTo(key))
	}, 1)
	if err != nil {
		return fmt.Errorf("delete %s: %w", k, err)
	}
	return nil
}

// Write applies b atomically, as one RocksDB write batch, under the
// configured sync policy. A poisoned batch (b.Err() != nil) is refused
// whole, and so is a batch holding a mutation that fails
// storage.Mutation.Check, however it came to be there. A batch with
// conditions is applied only if they hold (conditional.go).
func (e *Engine) Write(b *storage.Batch) error {
	if err := b.Err(); err != nil {
		return fmt.Errorf("write batch: %w", err)
	}
	if b.Conditional() {
		if err := e.enter(nil); err != nil {
			return fmt.Errorf("write batch of %d: %w", b.Len(), err)
		}
		defer e.mu.RUnlock()
		if err := e.writeConditional(b); err != nil {
			return fmt.Errorf("write batch of %d: %w", b.Len(), err)
		}
		return nil
	}
	err := e.commit(func(wo *grocksdb.WriteOptions, key []byte) error {
		wb := grocksdb.NewWriteBatch()
		defer wb.Destroy()
		if err := e.copyBatch(wb, b, key); err != nil {
			return err
		}
		return e.db.Write(wo, wb)
	}, uint64(b.Len()))
	if err != nil {
		return fmt.Errorf("write batch of %d: %w", b.Len(), err)
	}
	return nil
}

// WriteDurable applies b atomically and returns once the write-ahead log is
// synced, whatever Config.SyncWrites says. Concurrent calls share log
// syncs, conditional batches too: see groupCommit. Batches are checked as
// Write checks them.
func (e *Engine) WriteDurable(b *storage.Batch) error {
	if err := b.Err(); err != nil {
		return fmt.Errorf("write batch: %w", err)
	}
	if err := e.enterWrite(); err != nil {
		return fmt.Errorf("write batch of %d: %w", b.Len(), err)
	}
	defer e.mu.RUnlock()
	return e.writeDurable(b)
}

// copyBatch copies the mutations of b into wb, checking each as it is
// copied: the copy is what RocksDB receives, so nothing can change between
// the check and the write. The keys pass through key, a buffer of length
// 0, which RocksDB copies from, so a write makes no allocation per
// mutation.
func (e *Engine) copyBatch(wb *grocksdb.WriteBatch, b *storage.Batch, key []byte) error {
	for i, m := range b.All() {
		if err := m.Check(); err != nil {
			return fmt.Errorf("mutation %d: %w", i, err)
		}
		switch m.Kind {
		case storage.MutationPut:
			wb.PutCF(e.families[m.Key.Family()], m.Key.AppendTo(key), m.Value)
		case storage.MutationDelete:
			wb.DeleteCF(e.families[m.Key.Family()], m.Key.AppendTo(key))
		default:
			if lower, upper, ok := rangeEnds(&m.Range); ok {
				wb.DeleteRangeCF(e.families[m.Range.Family()], lower, upper)
			}
		}
	}
	return nil
}

// keyBuffers holds key-sized buffers for the calls that hand a key to
// RocksDB. Pointers passed to cgo escape, so handing RocksDB the bytes
// inside a Key would move every Key to the heap: one allocation per call.
var keyBuffers = sync.Pool{New: func() any { return new([storage.MaxKeyLen]byte) }}

// commit runs one write, do, with the engine entered, the write options of
// the sync policy, and a key buffer of length 0; count is the sequence
// numbers the write uses (see logged).
func (e *Engine) commit(do func(*grocksdb.WriteOptions, []byte) error, count uint64) error {
	if err := e.enterWrite(); err != nil {
		return err
	}
	defer e.mu.RUnlock()
	e.writes.RLock()
	defer e.writes.RUnlock()
	buf := keyBuffers.Get().(*[storage.MaxKeyLen]byte)
	defer keyBuffers.Put(buf)
	return e.logged(e.syncs, count, func() error { return do(e.write, buf[:0]) })
}

// logged runs write, which syncs the log if syncs. A write that syncs the
// log and succeeds advances the sync mark by count, the sequence numbers
// it uses, from the last sequence number published before it: every write
// published before it precedes it in the log, and the sync that
// acknowledges it covers them all, so the mark never exceeds what is on
// stable storage (see syncMark).
func (e *Engine) logged(syncs bool, count uint64, write func() error) error {
	var before uint64
	if syncs {
		before = e.db.GetLatestSequenceNumber()
	}
	if err := write(); err != nil {
		return classify(err)
	}
	if syncs {
		e.mark.advance(before + count)
	}
	return nil
}

// familyEnd is the exclusive end of a DeleteRange that runs to the end of
// its family (a range whose upper bound is nil). No key is longer than
// storage.MaxKeyLen, so this string of 0xFF bytes sorts after every key,
// including a key of all 0xFF bytes, which is a proper prefix of it.
var familyEnd = bytes.Repeat([]byte{0xFF}, storage.MaxKeyLen+1)

// rangeEnds returns the ends of a range tombstone over r: its upper bound,
// or familyEnd for a range that runs to the end of its family. ok is false
// for an empty range: the constructors build none today; should one appear,
// deleting it is a no-op, as in MemoryEngine, where RocksDB would fail with
// "end key comes before start key".
func rangeEnds(r *storage.ScanRange) (lower, upper []byte, ok bool) {
	lower, upper = r.Bounds()
	if upper == nil {
		return lower, familyEnd, true
	}
	return lower, upper, bytes.Compare(lower, upper) < 0
}

// DeleteRange removes every key of r with one range tombstone
// (DeleteRangeCF), under the configured sync policy.
func (e *Engine) DeleteRange(r storage.ScanRange) error {
	if !r.Valid() {
		return fmt.Errorf("delete range: %w", storage.ErrInvalidRange)
	}
	lower, upper, ok := rangeEnds(&r)
	if !ok {
		if err := e.enter(nil); err != nil {
			return fmt.Errorf("delete range %s: %w", r, err)
		}
		e.mu.RUnlock()
		return nil
	}
	err := e.commit(func(wo *grocksdb.WriteOptions, _ []byte) error {
		return e.db.DeleteRangeCF(wo, e.families[r.Family()], lower, upper)
	}, 1)
	if err != nil {
		return fmt.Errorf("delete range %s: %w", r, err)
	}
	return nil
}

// Close flushes the memtables to table files, so that a closed store no
// longer depends on its write-ahead log, and releases the store and its
// lock. It waits for calls in progress, ends scans in progress (they yield
// storage.ErrClosed at their next row), and releases open snapshots. Later
// calls, Close included, return storage.ErrClosed and touch nothing.
//
// A flush that fails (a full device) loses nothing: the log still holds
// every write, and the next Open replays it. Close then releases the store
// all the same and returns the flush's error.
func (e *Engine) Close() error {
	if e == nil || e.db == nil {
		return fmt.Errorf("close: %w", storage.ErrNotOpen)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed.Load() {
		return fmt.Errorf("close %s: %w", e.path, storage.ErrClosed)
	}
	e.closed.Store(true)
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
	var flushErr error
	if !e.readOnly {
		flushErr = flushAll(e.db, e.handles)
	}
	// RocksDB requires the family handles to go before the store.
	for _, h := range e.handles {
		h.Destroy()
	}
	e.db.Close()
	e.read.Destroy()
	e.write.Destroy()
	e.durable.Destroy()
	if e.mark != nil {
		e.mark.close(e.path, flushErr == nil)
	}
	if flushErr != nil {
		return fmt.Errorf("close %s: flush: %w", e.path, classify(flushErr))
	}
	return nil
}

// flushAll writes the memtable of every family of db to a table file and
// waits for it. A family with an empty memtable costs nothing.
func flushAll(db *grocksdb.DB, handles []*grocksdb.ColumnFamilyHandle) error {
	opts := grocksdb.NewDefaultFlushOptions()
	defer opts.Destroy()
	opts.SetWait(true)
	for _, h := range handles {
		if err := db.FlushCF(h, opts); err != nil {
			return err
		}
	}
	return nil
}
