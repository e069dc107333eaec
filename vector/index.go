package vector

import (
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/vector/internal/hnsw"
)

// index is the in-memory "now" of one tenant's vectors under one model:
// for every node, its head (the version visible as of Latest: the latest
// valid start, then the latest tx start). A live head is a slot of the
// matrix of its dimension; a tombstone head is remembered apart, so that
// an older version written later cannot bring the node back. A model's
// dimension is fixed while vectors of it are stored, so there is one
// matrix in practice; a second appears only for rows staged under an
// outdated definition, which searches at the current dimension must pass
// over, as the store path does.
//
// The index answers a query whose time is at or after every head it holds
// (newest): as of such a time every node's visible version is its head.
// Older times are read from the store.
//
// Searches take no lock: they read the view that the index's writers
// (loading, applying writes, the graph builder) publish as they release
// mu, which guards everything below it.
type index struct {
	key indexKey

	view atomic.Pointer[view] // nil while not loaded, and once dropped

	mu      sync.Mutex
	loaded  bool
	dropped bool // taken out of the Store (wipe, close): look the index up again
	mats    map[int]*matrix
	tombs   map[uuid.UUID]version // nodes whose head is a tombstone
	newest  AsOf                  // the latest valid start and tx start of any head held
	// seq is the sequence of the tenant's vector writes under the model
	// (storage.ReadVectorsSequence) that the index holds every write of;
	// ahead are the later values whose writes, made through this process,
	// it holds already (they landed out of order). See memory.validate.
	seq   uint64
	ahead map[uint64]bool
	// validated is 1 + the engine's write stamp read before the last
	// memory.validate that found the index current, 0 before any.
	validated atomic.Uint64
}

// view is an index as a writer last left it, which searches read without
// a lock and never change: its matrices are snapshots (matrix.snapshot).
// A search so sees one state of the index from start to end, however
// long it walks: a node that a write moves to a new slot is at its old
// slot or at its new one, never at both or at neither.
type view struct {
	newest AsOf
	seq    uint64          // index.seq
	ahead  map[uint64]bool // index.ahead, nil if empty
	tombs  int             // len(index.tombs)
	mats   map[int]*matrix
}

// publish makes the state of the index the view that searches read:
// writers call it before they release mu (unlock), whatever they changed.
func (ix *index) publish() {
	if !ix.loaded || ix.dropped {
		ix.view.Store(nil)
		return
	}
	v := &view{newest: ix.newest, seq: ix.seq, tombs: len(ix.tombs), mats: make(map[int]*matrix, len(ix.mats))}
	if len(ix.ahead) > 0 {
		v.ahead = maps.Clone(ix.ahead)
	}
	for dim, mx := range ix.mats {
		v.mats[dim] = mx.snapshot()
	}
	ix.view.Store(v)
}

// unlock publishes the index's state and releases mu.
func (ix *index) unlock() {
	ix.publish()
	ix.mu.Unlock()
}

// indexKey names an index: a tenant and a model.
type indexKey struct {
	scope storage.TenantScope
	model storage.ModelID
}

func newIndex(key indexKey) *index { return &index{key: key} }

// reset empties the index; it is loaded again on its next use.
func (ix *index) reset() {
	ix.loaded = false
	ix.mats = nil
	ix.tombs = nil
	ix.newest = AsOf{Valid: storage.MinTimestamp, Tx: storage.MinTimestamp}
	ix.seq, ix.ahead = 0, nil
}

// wrote records that the index holds the write that moved the sequence
// from seq to seq+1.
func (ix *index) wrote(seq uint64) {
	switch {
	case seq == ix.seq:
		ix.seq++
		for ix.ahead[ix.seq+1] {
			delete(ix.ahead, ix.seq+1)
			ix.seq++
		}
	case seq > ix.seq:
		if ix.ahead == nil {
			ix.ahead = make(map[uint64]bool)
		}
		ix.ahead[seq+1] = true
	}
}

// load reads the index from r: one scan of the tenant's vectors family,
// whose rows come by node, model, then latest version first, so the first
// row of each (node, model) is its head. The rows are borrowed
// (storage.ScanView): DecodeVector returns values and decodeValue decodes
// into buf, which setHead copies into the matrix, so nothing of a row
// outlives its iteration. Must hold mu.
func (ix *index) load(r storage.Reader) error {
	ix.reset()
	ix.mats = make(map[int]*matrix)
	ix.tombs = make(map[uuid.UUID]version)
	var (
		buf  []float32
		last uuid.UUID
		seen bool
	)
	for kv, err := range storage.ScanView(r, storage.TenantAll(ix.key.scope, storage.Vectors)) {
		if err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
		p, err := storage.DecodeVector(kv.Key)
		if err != nil {
			return fmt.Errorf("load vectors: %w", err)
		}
		if p.Model != ix.key.model || (seen && p.Node == last) {
			continue
		}
		last, seen = p.Node, true
		v, tomb, err := decodeValue(buf, kv.Value)
		if err != nil {
			return fmt.Errorf("load vectors: node %s: %w", p.Node, err)
		}
		buf = v
		ix.setHead(p.Node, version{p.ValidStart, p.TxStart}, v, tomb)
	}
	for _, mx := range ix.mats {
		mx.trim()
	}
	ix.loaded = true
	return nil
}

// serves reports whether the view answers a query as of at: whether at
// is at or after every head it has held. A head is the latest of its
// node's rows in key order, so as of such a time it is the visible
// version, whatever the node's other rows; newest never goes back (a head
// replaced by an older row, when a row is erased, only makes it cautious).
func (v *view) serves(at AsOf) bool {
	return at.Valid >= v.newest.Valid && at.Tx >= v.newest.Tx
}

// head returns the head of node: its version, and if it is live, its
// matrix and slot.
func (ix *index) head(node uuid.UUID) (ver version, mx *matrix, slot uint32, ok bool) {
	if ver, ok := ix.tombs[node]; ok {
		return ver, nil, 0, true
	}
	for _, mx := range ix.mats {
		if slot, ok := mx.find(node); ok {
			return mx.times[slot], mx, slot, true
		}
	}
	return version{}, nil, 0, false
}

// setHead makes ver, with vector v or a tombstone, the head of node.
func (ix *index) setHead(node uuid.UUID, ver version, v []float32, tomb bool) {
	ix.newest.Valid = max(ix.newest.Valid, ver.valid)
	ix.newest.Tx = max(ix.newest.Tx, ver.tx)
	ix.dropHead(node)
	if tomb {
		ix.tombs[node] = ver
		return
	}
	mx := ix.mats[len(v)]
	if mx == nil {
		mx = newMatrix(len(v))
		ix.mats[len(v)] = mx
	}
	mx.add(node, ver, v)
	ix.grew(mx)
}

// dropHead forgets node's head, if any, and kills its slot.
func (ix *index) dropHead(node uuid.UUID) {
	_, mx, slot, ok := ix.head(node)
	switch {
	case !ok:
	case mx == nil:
		delete(ix.tombs, node)
	default:
		mx.kill(slot)
		if mx.sparse() {
			ix.compact(mx)
		}
	}
}

// compact replaces mx by a copy without its dead slots. The graph, which
// knows points by slot, starts over and is rebuilt in the background if
// there was one.
func (ix *index) compact(mx *matrix) {
	out := mx.compacted()
	ix.mats[mx.dim] = out
	if mx.ann != nil {
		ix.startGraph(out, mx.ann.metric, mx.ann.cfg)
	}
}

// apply brings the index up to date with one written row of its tenant
// and model, whose write has reached the engine. A put of a version later
// than the node's head becomes the head from the written value; a put of
// an earlier version changes nothing. Anything else (a put at the head's
// own key, which concurrent writers may have written in either order, or
// a delete of a row) is settled by reading the node's history back from
// the engine, the one arbiter of order. Must hold mu.
func (ix *index) apply(r storage.Reader, m storage.Mutation, p storage.VectorParts) error {
	ver := version{p.ValidStart, p.TxStart}
	h, _, _, ok := ix.head(p.Node)
	if m.Kind == storage.MutationPut {
		if !ok || ver.after(h) {
			v, tomb, err := decodeValue(nil, m.Value)
			if err == nil {
				ix.setHead(p.Node, ver, v, tomb)
				return nil
			}
		} else if ver != h {
			return nil
		}
	}
	return ix.reread(r, p.Node)
}

// reread sets the head of node from its stored history.
func (ix *index) reread(r storage.Reader, node uuid.UUID) error {
	for kv, err := range r.Scan(storage.VectorHistory(ix.key.scope, node, ix.key.model)) {
		if err != nil {
			return err
		}
		p, err := storage.DecodeVector(kv.Key)
		if err != nil {
			return err
		}
		v, tomb, err := decodeValue(nil, kv.Value)
		if err != nil {
			return fmt.Errorf("node %s: %w", node, err)
		}
		ix.setHead(node, version{p.ValidStart, p.TxStart}, v, tomb)
		return nil
	}
	ix.dropHead(node)
	return nil
}

// search answers q from the view with the search options of opts,
// appending the hits to dst, and reports false if the view does not read
// as of q.At. An approximate search of a matrix without a graph under q's
// metric is answered exactly and returns the matrix, whose graph the
// caller should start (index.wantGraph).
func (v *view) search(dst []Hit, m Model, q Query, opts *Options) (hits []Hit, ok bool, graphless *matrix) {
	if !v.serves(q.At) {
		return nil, false, nil
	}
	p := newProbe(m.Metric, q.Vector)
	k := newKNN(m.Metric, q.Vector, p.qnorm, q.K, dst)
	mx := v.mats[m.Dimension]
	if mx == nil {
		return k.result(), true, nil
	}
	set, allowed := mx.live, mx.nlive
	if q.Filter != nil {
		set, allowed = mx.filter(q.Filter)
	}
	nodes := mx.walkNodes()
	sparse := !dense(allowed, nodes)
	width := walkWidth(max(opts.EfSearch, q.K), q.K, allowed, nodes, q.Filter != nil, mx.ann != nil && mx.ann.quantized)
	switch {
	case q.Method != Approximate || opts.scans(allowed, mx.nlive, width):
		mx.exact(&p, &k, set, 0)
	case mx.ann == nil || mx.ann.metric != m.Metric:
		mx.exact(&p, &k, set, 0)
		graphless = mx
	default:
		mx.approximate(&p, &k, set, sparse, width)
	}
	return k.result(), true, graphless
}

// wantGraph gives the matrix of the index that mx is a snapshot of a
// graph of shape cfg under metric, if it is still a matrix of the index
// and has none under that metric. It returns that matrix and its graph,
// nil if it is gone.
func (ix *index) wantGraph(mx *matrix, metric Metric, cfg hnsw.Config) (*matrix, *ann) {
	ix.mu.Lock()
	defer ix.unlock()
	cur := ix.mats[mx.dim]
	if ix.dropped || !ix.loaded || cur == nil || cur.id != mx.id {
		return nil, nil
	}
	if cur.ann == nil || cur.ann.metric != metric {
		ix.startGraph(cur, metric, cfg)
	}
	return cur, cur.ann
}
