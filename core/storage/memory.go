package storage

import (
	"bytes"
	"fmt"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
)

// MemoryEngine is the semantic baseline engine: pure Go, byte-ordered,
// atomic batches, O(1) isolated snapshots. It is the fast engine for unit
// tests across the codebase, and the reference every other engine is
// compared with by the conformance suite in storagetest.
//
// Each family is a slice of rows sorted by key bytes. A slice, once
// published, is never modified: every write builds new slices for the
// families it touches, in O(rows of the family). So a snapshot or a running
// scan simply keeps the slices it saw, without locks or reference counts,
// and a scan never holds the lock while its loop body runs: the body may
// write to the engine. The price, a copy of the family on every write, is
// right for a test baseline and wrong for production data.
//
// The zero MemoryEngine is an empty, working engine; a nil *MemoryEngine
// refuses every call with ErrNotOpen.
type MemoryEngine struct {
	mu     sync.RWMutex
	closed atomic.Bool // set under mu; read without it by running scans
	tables memTables
	writes atomic.Uint64 // writes applied (WriteStamp); advanced under mu
}

// memTables holds one immutable sorted slice per family, indexed by
// ColumnFamily (index 0 is unused).
type memTables [LastFamily + 1][]memRow

// memRow is one stored row. Its slices are never written after the row is
// built, so rows may be shared between tables.
type memRow struct {
	key   []byte
	value []byte
}

// memMutation is one batch mutation in the byte form the tables store.
type memMutation struct {
	key    []byte
	value  []byte
	remove bool
}

var (
	_ Engine       = (*MemoryEngine)(nil)
	_ ViewScanner  = (*MemoryEngine)(nil)
	_ ViewScanner  = (*memSnapshot)(nil)
	_ WriteStamper = (*MemoryEngine)(nil)
)

// NewMemoryEngine returns an empty engine.
func NewMemoryEngine() *MemoryEngine { return &MemoryEngine{} }

// Get returns a copy of the value at k, or ErrNotFound.
func (e *MemoryEngine) Get(k Key) ([]byte, error) {
	if e == nil {
		return nil, fmt.Errorf("memory engine: get: %w", ErrNotOpen)
	}
	return get(k, e)
}

// Scan yields copies of the rows of r in ascending byte order, from the
// family as it was when the loop started. If the engine closes under it,
// the scan's next element is ErrClosed, its last.
func (e *MemoryEngine) Scan(r ScanRange) iter.Seq2[KV, error] {
	if e == nil {
		return failedScan(fmt.Errorf("memory engine: scan: %w", ErrNotOpen))
	}
	return scan(r, e, false)
}

// ScanView is Scan with borrowed rows (see the ScanView function): each
// row is copied into one buffer that the scan reuses.
func (e *MemoryEngine) ScanView(r ScanRange) iter.Seq2[KV, error] {
	if e == nil {
		return failedScan(fmt.Errorf("memory engine: scan view: %w", ErrNotOpen))
	}
	return scan(r, e, true)
}

// rowSource is the engine or a snapshot: where Get and Scan find the
// slice of a family, and whether it is still open.
type rowSource interface {
	rows(ColumnFamily) ([]memRow, error)
	// live returns ErrClosed once the source or its engine is closed.
	live() error
}

// rows returns the current slice of family cf.
func (e *MemoryEngine) rows(cf ColumnFamily) ([]memRow, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed.Load() {
		return nil, ErrClosed
	}
	return e.tables[cf], nil
}

func (e *MemoryEngine) live() error {
	if e.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Put stores a copy of value at k.
func (e *MemoryEngine) Put(k Key, value []byte) error {
	return e.apply("put", one(Mutation{Kind: MutationPut, Key: k, Value: value}), nil)
}

// Delete removes k.
func (e *MemoryEngine) Delete(k Key) error {
	return e.apply("delete", one(Mutation{Kind: MutationDelete, Key: k}), nil)
}

// one yields the single mutation m, as a batch would.
func one(m Mutation) iter.Seq2[int, Mutation] {
	return func(yield func(int, Mutation) bool) { yield(0, m) }
}

// Write applies b atomically: either every mutation is visible or none.
// Its conditions are checked under the lock that installs it.
func (e *MemoryEngine) Write(b *Batch) error {
	if err := b.Err(); err != nil {
		return fmt.Errorf("memory engine: write batch: %w", err)
	}
	return e.apply("write batch", b.All(), b)
}

// WriteDurable is Write: a memory engine has no stable storage, so its
// durability is the process's.
func (e *MemoryEngine) WriteDurable(b *Batch) error { return e.Write(b) }

// apply checks every mutation (Mutation.Check: a batch may have been
// changed since it was built), then installs them all under one lock
// acquisition, so readers see all of them or none, once the conditions
// of cond (nil for none) hold under that lock. Mutations of one key apply
// in order: the last one wins.
//
// The tables keep the keys and values in one new buffer per call: the
// caller may still reach the values it passed, even those of a Batch, and
// must not be able to change a stored row through them.
func (e *MemoryEngine) apply(op string, muts iter.Seq2[int, Mutation], cond *Batch) error {
	if e == nil {
		return fmt.Errorf("memory engine: %s: %w", op, ErrNotOpen)
	}
	size := 0
	for _, m := range muts {
		if m.Check() == nil && m.Kind == MutationPut {
			size += len(m.Value)
		}
		size += MaxKeyLen
	}
	buf := make([]byte, 0, size)
	var byFamily [LastFamily + 1][]memMutation
	var ranges []ScanRange
	for i, m := range muts {
		if err := m.Check(); err != nil {
			return fmt.Errorf("memory engine: %s: mutation %d: %w", op, i, err)
		}
		if m.Kind == MutationDeleteRange {
			ranges = append(ranges, m.Range)
			continue
		}
		var mm memMutation
		mm.key, buf = appendField(buf, m.Key.View())
		if m.Kind == MutationPut {
			mm.value, buf = appendField(buf, m.Value)
		} else {
			mm.remove = true
		}
		cf := m.Key.Family()
		byFamily[cf] = append(byFamily[cf], mm)
	}
	for cf := range byFamily {
		byFamily[cf] = lastPerKey(byFamily[cf])
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed.Load() {
		return fmt.Errorf("memory engine: %s: %w", op, ErrClosed)
	}
	if err := e.holdsLocked(cond); err != nil {
		return fmt.Errorf("memory engine: %s: %w", op, err)
	}
	// A batch puts no key inside a range it deletes (Batch), so the range
	// deletions may go first.
	for _, r := range ranges {
		e.tables[r.Family()] = withoutRange(e.tables[r.Family()], r)
	}
	for cf, fm := range byFamily {
		if len(fm) > 0 {
			e.tables[cf] = merge(e.tables[cf], fm)
		}
	}
	e.writes.Add(1)
	return nil
}

// holdsLocked returns nil if every condition of b holds in the tables, an
// error wrapping ErrConflict naming the first that does not, or the error
// of a condition that fails its check. The caller holds e.mu.
func (e *MemoryEngine) holdsLocked(b *Batch) error {
	for i, c := range b.Conditions() {
		if err := c.Check(); err != nil {
			return fmt.Errorf("condition %d: %w", i, err)
		}
		rows := e.tables[c.Key.Family()]
		j, found := search(rows, c.Key.View())
		var value []byte
		if found {
			value = rows[j].value
		}
		if !c.Holds(value, found) {
			return fmt.Errorf("condition %d, %s: %w", i, c, ErrConflict)
		}
	}
	return nil
}

// withoutRange returns rows without the rows of r: rows itself if r holds
// none, else a new slice, since snapshots may share rows.
func withoutRange(rows []memRow, r ScanRange) []memRow {
	lo, hi := bounds(rows, r)
	if lo == hi {
		return rows
	}
	return append(append(make([]memRow, 0, len(rows)-(hi-lo)), rows[:lo]...), rows[hi:]...)
}

// appendField appends b to buf and returns the appended bytes, capped so
// that a later append cannot write over them, and the grown buf.
func appendField(buf, b []byte) (field, grown []byte) {
	n := len(buf)
	buf = append(buf, b...)
	return buf[n:len(buf):len(buf)], buf
}

// lastPerKey sorts muts by key and keeps the last mutation of each key.
func lastPerKey(muts []memMutation) []memMutation {
	slices.SortStableFunc(muts, func(a, b memMutation) int { return bytes.Compare(a.key, b.key) })
	out := muts[:0]
	for i, m := range muts {
		if i+1 < len(muts) && bytes.Equal(m.key, muts[i+1].key) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// merge returns a new slice: old with the sorted, distinct-key mutations
// applied. old is not modified.
func merge(old []memRow, muts []memMutation) []memRow {
	out := make([]memRow, 0, len(old)+len(muts))
	i := 0
	for _, m := range muts {
		j, found := search(old[i:], m.key)
		out = append(out, old[i:i+j]...)
		i += j
		if found {
			i++ // replaced or deleted
		}
		if !m.remove {
			out = append(out, memRow{key: m.key, value: m.value})
		}
	}
	return append(out, old[i:]...)
}

// DeleteRange removes every key of r.
func (e *MemoryEngine) DeleteRange(r ScanRange) error {
	if e == nil {
		return fmt.Errorf("memory engine: delete range: %w", ErrNotOpen)
	}
	if !r.Valid() {
		return fmt.Errorf("memory engine: delete range: %w", ErrInvalidRange)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed.Load() {
		return fmt.Errorf("memory engine: delete range %s: %w", r, ErrClosed)
	}
	e.tables[r.Family()] = withoutRange(e.tables[r.Family()], r)
	e.writes.Add(1)
	return nil
}

// WriteStamp returns the number of writes the engine has applied: every
// write to a MemoryEngine goes through it.
func (e *MemoryEngine) WriteStamp() (uint64, error) {
	if e == nil {
		return 0, fmt.Errorf("memory engine: write stamp: %w", ErrNotOpen)
	}
	if e.closed.Load() {
		return 0, fmt.Errorf("memory engine: write stamp: %w", ErrClosed)
	}
	return e.writes.Load(), nil
}

// Snapshot returns a view of the engine as of now. It shares the engine's
// current slices, which later writes replace rather than modify.
func (e *MemoryEngine) Snapshot() (Snapshot, error) {
	if e == nil {
		return nil, fmt.Errorf("memory engine: snapshot: %w", ErrNotOpen)
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed.Load() {
		return nil, fmt.Errorf("memory engine: snapshot: %w", ErrClosed)
	}
	return &memSnapshot{engine: e, tables: e.tables}, nil
}

// Close releases the engine's rows. Later calls, including those of its
// snapshots, return ErrClosed, and scans in progress end with ErrClosed at
// their next row.
func (e *MemoryEngine) Close() error {
	if e == nil {
		return fmt.Errorf("memory engine: close: %w", ErrNotOpen)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed.Load() {
		return fmt.Errorf("memory engine: close: %w", ErrClosed)
	}
	e.closed.Store(true)
	e.tables = memTables{}
	return nil
}

// memSnapshot is a MemoryEngine snapshot. It does not outlive its engine:
// after the engine closes its reads return ErrClosed, as a RocksDB snapshot
// dies with its database.
type memSnapshot struct {
	engine *MemoryEngine
	tables memTables
	closed atomic.Bool
}

func (s *memSnapshot) Get(k Key) ([]byte, error) {
	if s == nil || s.engine == nil {
		return nil, fmt.Errorf("memory snapshot: get: %w", ErrNotOpen)
	}
	return get(k, s)
}

func (s *memSnapshot) Scan(r ScanRange) iter.Seq2[KV, error] {
	if s == nil || s.engine == nil {
		return failedScan(fmt.Errorf("memory snapshot: scan: %w", ErrNotOpen))
	}
	return scan(r, s, false)
}

func (s *memSnapshot) ScanView(r ScanRange) iter.Seq2[KV, error] {
	if s == nil || s.engine == nil {
		return failedScan(fmt.Errorf("memory snapshot: scan view: %w", ErrNotOpen))
	}
	return scan(r, s, true)
}

func (s *memSnapshot) rows(cf ColumnFamily) ([]memRow, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	return s.tables[cf], nil
}

func (s *memSnapshot) live() error {
	if s.closed.Load() || s.engine.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Close releases the snapshot. Closing it twice returns ErrClosed.
func (s *memSnapshot) Close() error {
	if s == nil || s.engine == nil {
		return fmt.Errorf("memory snapshot: close: %w", ErrNotOpen)
	}
	if s.closed.Swap(true) {
		return fmt.Errorf("memory snapshot: close: %w", ErrClosed)
	}
	return nil
}

// get is Get for the engine and its snapshots: a copy of the value at k,
// or ErrNotFound. The miss is not wrapped: it is an expected answer on a
// hot path.
func get(k Key, src rowSource) ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("memory engine: get: %w", ErrInvalidKey)
	}
	rows, err := src.rows(k.Family())
	if err != nil {
		return nil, fmt.Errorf("memory engine: get: %w", err)
	}
	i, found := search(rows, k.View())
	if !found {
		return nil, ErrNotFound
	}
	return bytes.Clone(rows[i].value), nil
}

// scan is Scan for the engine and its snapshots. It takes the family's
// slice once, when the loop starts, and releases every lock before it
// yields: the loop body may write to the engine, and sees none of those
// writes in this loop.
//
// With lend (ScanView), each row is copied into one buffer that the scan
// reuses rather than into new slices. The stored slices themselves are not
// lent: every snapshot shares them, so a caller that wrote into a borrowed
// row would change them; and a reused buffer makes a loop that keeps a
// borrowed row see it overwritten here, in unit tests, as it would on
// RocksDB.
func scan(r ScanRange, src rowSource, lend bool) iter.Seq2[KV, error] {
	return func(yield func(KV, error) bool) {
		if !r.Valid() {
			yield(KV{}, fmt.Errorf("memory engine: scan: %w", ErrInvalidRange))
			return
		}
		rows, err := src.rows(r.Family())
		if err != nil {
			yield(KV{}, fmt.Errorf("memory engine: scan %s: %w", r, err))
			return
		}
		lo, hi := bounds(rows, r)
		var buf []byte // a lent scan's buffer
		for _, row := range rows[lo:hi] {
			if err := src.live(); err != nil {
				yield(KV{}, fmt.Errorf("memory engine: scan %s: %w", r, err))
				return
			}
			var kv KV
			if lend {
				buf = append(append(buf[:0], row.key...), row.value...)
				n := len(row.key)
				kv = KV{Key: buf[:n:n], Value: buf[n:len(buf):len(buf)]}
			} else {
				kv = KV{Key: bytes.Clone(row.key), Value: bytes.Clone(row.value)}
			}
			if !yield(kv, nil) {
				return
			}
		}
	}
}

// failedScan is a scan that yields only err.
func failedScan(err error) iter.Seq2[KV, error] {
	return func(yield func(KV, error) bool) { yield(KV{}, err) }
}

// bounds returns the index interval of rows that lies inside r.
func bounds(rows []memRow, r ScanRange) (lo, hi int) {
	lower, upper := r.Bounds()
	lo, _ = search(rows, lower)
	hi = len(rows)
	if upper != nil {
		hi, _ = search(rows, upper)
	}
	return lo, max(lo, hi)
}

// search returns the index of the first row whose key is at or after key,
// and whether it is key. It is written out, rather than a call to
// slices.BinarySearchFunc, so that key does not escape: a Get does not
// allocate its Key on the heap.
func search(rows []memRow, key []byte) (int, bool) {
	lo, hi := 0, len(rows)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if bytes.Compare(rows[mid].key, key) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(rows) && bytes.Equal(rows[lo].key, key)
}
