package vector

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// memory is the in-memory side of the Stores over one engine (see
// attach): an index per (tenant, model) that has been searched, and the
// rows Stage added to batches that no Store has yet seen written.
//
// Lock order: memory.mu is innermost. Code may take it while holding an
// index's mu, never the reverse. A search takes neither: it finds its
// index in indexes, a sync.Map whose reads share nothing, and reads the
// index's published view.
type memory struct {
	eng    storage.Engine
	refs   int    // Stores attached; guarded by shared.mu
	cancel func() // ends the wipe registration

	// indexes maps each indexKey to its *index. Indexes are added under
	// mu, so that none is added after close; they are read without it.
	indexes sync.Map

	mu     sync.Mutex
	closed atomic.Bool // set under mu
	// sequences are the vectors sequences (storage.ReadVectorsSequence) as
	// this process last wrote or read them, which its next write of the
	// tenant and model expects: right unless another process wrote since.
	sequences map[indexKey]storage.Counter
	claims    map[indexKey]map[uint64]chan struct{} // see inflight.go
	staged    map[indexKey]*pending
	nstaged   atomic.Int64 // rows in staged, read without mu by every search

	models modelCache // the latest definitions of the models searched
}

// pending is the staged rows of one index. They are settled (checked
// against the engine, applied if written) by the next search of the index,
// and by Stage itself when their number doubles, so rows of batches that
// were written straight to the engine do not pile up.
//
// A row counts as written when the engine holds its value at its key. The
// key alone would not do: a staged row may rewrite a version that is
// already stored, and its batch may still be unwritten.
type pending struct {
	rows     map[stagedKey][]string // the values staged at each key
	n        int
	settleAt int
}

// stagedKey is the key of a row added by Stage, within its index.
type stagedKey struct {
	node      uuid.UUID
	valid, tx storage.Timestamp
}

// stagedRow is a row added by Stage: its key and value.
type stagedRow struct {
	key   stagedKey
	value string
}

// minSettle is the number of staged rows of one index that makes Stage
// settle them.
const minSettle = 1024

func newMemory(eng storage.Engine) *memory {
	mem := &memory{
		eng:    eng,
		staged: make(map[indexKey]*pending),
	}
	mem.cancel = storage.OnWipe(eng, mem, (*memory).forget)
	return mem
}

// lookup returns the index of key, made (unloaded) if there is none.
func (mem *memory) lookup(key indexKey) (*index, error) {
	if ix := mem.existing(key); ix != nil && !mem.closed.Load() {
		return ix, nil
	}
	mem.mu.Lock()
	defer mem.mu.Unlock()
	if mem.closed.Load() {
		return nil, storage.ErrClosed
	}
	v, _ := mem.indexes.LoadOrStore(key, newIndex(key))
	return v.(*index), nil
}

// existing returns the index of key, or nil.
func (mem *memory) existing(key indexKey) *index {
	v, _ := mem.indexes.Load(key)
	ix, _ := v.(*index)
	return ix
}

// all returns every index held.
func (mem *memory) all() []*index {
	var out []*index
	for _, v := range mem.indexes.Range {
		out = append(out, v.(*index))
	}
	return out
}

// acquire returns the index of key loaded from r, its staged rows
// settled, and the view of it to search. It validates the index against
// the store first (validate).
func (mem *memory) acquire(r storage.Reader, key indexKey) (*index, *view, error) {
	if err := mem.validate(key); err != nil {
		return nil, nil, err
	}
	for {
		ix, err := mem.lookup(key)
		if err != nil {
			return nil, nil, err
		}
		if v := ix.view.Load(); v != nil && !mem.hasStaged(key) {
			return ix, v, nil
		}
		if err := mem.prepare(r, ix); err != nil {
			return nil, nil, err
		}
		if v := ix.view.Load(); v != nil {
			return ix, v, nil
		}
	}
}

// validate checks the index of key against the store before a search uses
// it, so that a search sees every change another process made before the
// search began: the tenant's generation (storage.RefreshTenantFrom drops
// every index of the tenant that another process wiped, erased or
// imported), and the sequence of the tenant's vector writes under the
// model, which every write through a Store advances (Store.Write): an
// index that does not hold every write up to the sequence is dropped, to
// be loaded again. One scan of the tenant's counters; the index of a
// tenant and model that only this process writes stays loaded.
//
// On an engine with write stamps (storage.WriteStamp) the scan is skipped
// while the stamp is the one read before the last check that found the
// index current: nothing was written since, so the check would pass
// again.
func (mem *memory) validate(key indexKey) error {
	stamp, stamped := storage.WriteStamp(mem.eng)
	if ix := mem.existing(key); stamped && ix != nil && ix.validated.Load() == stamp+1 {
		return nil
	}
	cs, err := storage.ReadTenantCounters(mem.eng, key.scope)
	if err != nil {
		return fmt.Errorf("validate vectors index: %w", err)
	}
	storage.RefreshTenantFrom(mem.eng, cs)
	ix := mem.existing(key)
	if ix == nil {
		return nil
	}
	seq := cs.Vectors(key.model)
	mem.knowSequence(key, seq, true)
	// The view decides the common case, an index that holds every write,
	// without a lock. An index behind only by writes of this process that
	// are being applied is current once they are (inflight.go). Sequences
	// only grow (within a generation), so an index ahead of the value read
	// took writes made since.
	v := ix.view.Load()
	if v != nil && v.seq < seq.Value() && mem.awaitOwn(key, v, seq.Value()) {
		v = ix.view.Load()
	}
	current := v != nil && v.seq >= seq.Value()
	stale := v != nil && !current
	if current && stamped {
		ix.validated.Store(stamp + 1)
	}
	if !stale {
		return nil
	}
	ix.mu.Lock()
	defer ix.unlock()
	if ix.loaded && !ix.dropped && ix.seq < seq.Value() {
		mem.drop(ix)
	}
	return nil
}

// knownSequence returns the vectors sequence of key as this process last
// wrote or read it.
func (mem *memory) knownSequence(key indexKey) (storage.Counter, bool) {
	mem.mu.Lock()
	defer mem.mu.Unlock()
	c, ok := mem.sequences[key]
	return c, ok
}

// knowSequence records the vectors sequence of key as written or read.
// Unless forward is false it keeps a later value known already: a read
// that ran beside this process's own writes, or a write that landed
// before another of them, may give a value they have passed, and the next
// write would expect it in vain. A value found wrong, too high after a
// wipe for one, costs one attempt: the write then reads the sequence and
// records what it wrote with forward false.
func (mem *memory) knowSequence(key indexKey, c storage.Counter, forward bool) {
	mem.mu.Lock()
	defer mem.mu.Unlock()
	if mem.sequences == nil {
		mem.sequences = make(map[indexKey]storage.Counter)
	}
	if known, ok := mem.sequences[key]; ok && forward && known.Value() > c.Value() {
		return
	}
	mem.sequences[key] = c
}

// prepare loads ix if it is not loaded and settles its staged rows. The
// sequence of the tenant's vector writes under the model is read before
// the rows, so that the index holds every write up to it.
func (mem *memory) prepare(r storage.Reader, ix *index) error {
	ix.mu.Lock()
	defer ix.unlock()
	if ix.dropped {
		return nil
	}
	if !ix.loaded {
		seq, err := storage.ReadVectorsSequence(r, ix.key.scope, ix.key.model)
		if err == nil {
			err = ix.load(r)
		}
		if err != nil {
			ix.reset()
			return err
		}
		ix.seq = seq.Value()
	}
	return mem.settle(r, ix)
}

func (mem *memory) hasStaged(key indexKey) bool {
	if mem.nstaged.Load() == 0 {
		return false
	}
	mem.mu.Lock()
	defer mem.mu.Unlock()
	return mem.staged[key] != nil
}

// stage records a row added to a batch by Stage.
func (mem *memory) stage(r storage.Reader, key indexKey, row stagedRow) error {
	mem.mu.Lock()
	if mem.closed.Load() {
		mem.mu.Unlock()
		return storage.ErrClosed
	}
	p := mem.staged[key]
	if p == nil {
		p = &pending{rows: make(map[stagedKey][]string), settleAt: minSettle}
		mem.staged[key] = p
	}
	if !slices.Contains(p.rows[row.key], row.value) {
		p.rows[row.key] = append(p.rows[row.key], row.value)
		p.n++
		mem.nstaged.Add(1)
	}
	due := p.n >= p.settleAt
	mem.mu.Unlock()
	if !due {
		return nil
	}
	ix, err := mem.lookup(key)
	if err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.unlock()
	if ix.dropped {
		return nil
	}
	return mem.settle(r, ix)
}

// settle checks the staged rows of ix against r: a row that is there was
// written, so the index takes it in (a loaded index reads the node back;
// an unloaded one will see the row when it loads) and the row stops being
// staged. Must hold ix.mu, so that no load can start between the check
// and the unstaging.
func (mem *memory) settle(r storage.Reader, ix *index) error {
	mem.mu.Lock()
	var keys []stagedKey
	if p := mem.staged[ix.key]; p != nil {
		for k := range p.rows {
			keys = append(keys, k)
		}
	}
	mem.mu.Unlock()
	var written []stagedRow
	for _, k := range keys {
		v, err := r.Get(storage.VectorKey(ix.key.scope, k.node, ix.key.model, k.valid, k.tx))
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("settle staged vectors: %w", err)
		}
		row := stagedRow{key: k, value: string(v)}
		if !mem.isStaged(ix.key, row) {
			continue
		}
		if ix.loaded {
			if err := ix.reread(r, k.node); err != nil {
				return fmt.Errorf("settle staged vectors: %w", err)
			}
		}
		written = append(written, row)
	}
	mem.unstage(ix.key, written...)
	return nil
}

// isStaged reports whether row is staged in the index of key.
func (mem *memory) isStaged(key indexKey, row stagedRow) bool {
	mem.mu.Lock()
	defer mem.mu.Unlock()
	p := mem.staged[key]
	return p != nil && slices.Contains(p.rows[row.key], row.value)
}

// unstage forgets staged rows of key.
func (mem *memory) unstage(key indexKey, rows ...stagedRow) {
	mem.mu.Lock()
	defer mem.mu.Unlock()
	p := mem.staged[key]
	if p == nil {
		return
	}
	for _, row := range rows {
		values := p.rows[row.key]
		if i := slices.Index(values, row.value); i >= 0 {
			values = slices.Delete(values, i, i+1)
			p.n--
			mem.nstaged.Add(-1)
		}
		if len(values) == 0 {
			delete(p.rows, row.key)
		} else {
			p.rows[row.key] = values
		}
	}
	if p.n == 0 {
		delete(mem.staged, key)
		return
	}
	p.settleAt = max(minSettle, 2*p.n)
}

// applyBatch brings the indexes up to date with the vectors rows of a
// batch that r now holds: each is applied to the loaded index of its
// tenant and model, and stops being staged. An index that cannot take a
// row is dropped, to be loaded again from r when next searched. seqs are
// the sequences the batch advanced, as they were before it.
func (mem *memory) applyBatch(r storage.Reader, batch map[indexKey][]batchRow, seqs map[indexKey]uint64) {
	for key, rows := range batch {
		if ix := mem.existing(key); ix != nil {
			ix.mu.Lock()
			if ix.loaded && !ix.dropped {
				for _, row := range rows {
					if err := ix.apply(r, row.m, row.p); err != nil {
						mem.drop(ix)
						break
					}
				}
				ix.wrote(seqs[key])
			}
			ix.unlock()
		}
		written := make([]stagedRow, 0, len(rows))
		for _, row := range rows {
			if row.m.Kind == storage.MutationPut {
				k := stagedKey{node: row.p.Node, valid: row.p.ValidStart, tx: row.p.TxStart}
				written = append(written, stagedRow{key: k, value: string(row.m.Value)})
			}
		}
		mem.unstage(key, written...)
	}
}

// failedBatch drops the indexes that a batch touches: the engine refused
// it, and may or may not hold some of it (a distributed engine can fail
// after applying), so they are loaded again from the engine when next
// searched.
func (mem *memory) failedBatch(batch map[indexKey][]batchRow) {
	for key := range batch {
		if ix := mem.existing(key); ix != nil {
			ix.mu.Lock()
			mem.drop(ix)
			ix.unlock()
		}
	}
}

// batchRow is one vectors mutation of a batch, decoded.
type batchRow struct {
	m storage.Mutation
	p storage.VectorParts
}

// vectorRows groups the vectors mutations of b by index.
func vectorRows(b *storage.Batch) map[indexKey][]batchRow {
	out := make(map[indexKey][]batchRow)
	var buf []byte
	for _, m := range b.All() {
		if m.Key.Family() != storage.Vectors {
			continue
		}
		buf = m.Key.AppendTo(buf[:0])
		p, err := storage.DecodeVector(buf)
		if err != nil {
			continue
		}
		scope, err := storage.NewTenantScope(p.Scope.Tenant, p.Scope.Organization)
		if err != nil {
			continue
		}
		key := indexKey{scope: scope, model: p.Model}
		out[key] = append(out[key], batchRow{m: m, p: p})
	}
	return out
}

// drop takes ix out of the registry and frees what it holds; a search
// that still has it looks the index up again (a search already running
// ends on the view it has). Must hold ix.mu.
func (mem *memory) drop(ix *index) {
	mem.indexes.CompareAndDelete(ix.key, ix)
	ix.dropped = true
	ix.reset()
}

// forget drops every index of scope: the tenant was wiped. Its staged rows
// stay staged, since a batch staged before the wipe may be written after
// it.
func (mem *memory) forget(scope storage.TenantScope) {
	var gone []*index
	for _, ix := range mem.all() {
		if ix.key.scope == scope {
			gone = append(gone, ix)
		}
	}
	mem.dropAll(gone)
}

// close drops every index and staged row and ends the wipe registration;
// later calls fail with storage.ErrClosed.
func (mem *memory) close() {
	mem.cancel()
	mem.mu.Lock()
	mem.closed.Store(true)
	mem.staged = make(map[indexKey]*pending)
	mem.nstaged.Store(0)
	mem.mu.Unlock()
	mem.dropAll(mem.all())
}

func (mem *memory) dropAll(gone []*index) {
	for _, ix := range gone {
		ix.mu.Lock()
		mem.drop(ix)
		ix.unlock()
	}
}

// MemoryStats describes what the in-memory indexes of an engine hold.
type MemoryStats struct {
	Indexes int   // loaded (tenant, model) indexes
	Vectors int   // current vectors in them
	Bytes   int64 // memory of their matrices, graphs and tombstones
}

// MemoryStats returns what the in-memory indexes of the Store's engine,
// which the Stores over it share, hold now.
func (s *Store) MemoryStats() MemoryStats {
	var st MemoryStats
	if s.mem == nil {
		return st
	}
	for _, ix := range s.mem.all() {
		if v := ix.view.Load(); v != nil {
			st.Indexes++
			st.Bytes += tombBytes * int64(v.tombs)
			for _, mx := range v.mats {
				st.Vectors += mx.nlive
				st.Bytes += mx.bytes()
			}
		}
	}
	return st
}

// tombBytes is the memory of one tombstone head: a map entry of a 16-byte
// key and a 16-byte version, with the map's overhead.
const tombBytes = 48
