package vector

import (
	"bytes"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Query is one k-nearest-neighbour search.
type Query struct {
	Model  string    // registered model name
	Vector []float32 // must match the model's dimension
	K      int       // number of neighbours, at least 1
	At     AsOf      // the time the search sees; Latest for now
	// Filter restricts the search to a set of nodes, for example the result
	// of a bitmap predicate query. Nil searches every node of the tenant.
	Filter *Filter
	// Method chooses how the neighbours are found; the zero value is Exact.
	Method Method
}

// Method chooses how Search finds neighbours.
type Method uint8

// The methods. A query reads "now" when its time is at or after the valid
// start and the tx start of each node's latest version in its tenant and
// model (a query as of Latest always does): as of such a time each node's
// visible version is its latest, which the in-memory index holds.
const (
	// Exact returns the exact K nearest neighbours: from the in-memory
	// index for a query of "now", from the store for an earlier time. Both
	// give the same hits, distances included.
	Exact Method = iota

	// Approximate answers a query of "now" from the approximate graph
	// (HNSW), with the filter applied during the walk: most of the K
	// nearest, much faster than Exact on large sets. Hits carry their exact
	// distances and come nearest first. A filter that allows few vectors
	// (Options.ExactBelow), and a graph still being built, are answered
	// exactly, in full or in part. An earlier time is read exactly from the
	// store.
	Approximate

	// FromStore reads the store for every query, the exact search that
	// needs no memory: the reference the in-memory paths are checked
	// against.
	FromStore
)

// Filter is a set of candidate nodes. A Filter may serve many searches,
// concurrently too: the in-memory index translates IDs into its own slots
// once per state of the index and keeps the translation in the Filter
// (filter.go), so IDs must not change once the Filter has been searched
// with; build a new Filter for other nodes.
type Filter struct {
	IDs []uuid.UUID

	slots atomic.Pointer[filterSlots] // the latest translation of IDs
}

// Hit is one neighbour.
type Hit struct {
	Node     uuid.UUID
	Distance float64 // lower is nearer; see the metric constants
}

// Search returns the K nearest neighbours of q.Vector among the tenant's
// vectors under q.Model as of q.At, nearest first, ties broken by node id,
// found by q.Method.
//
// The model version current at q.At.Tx fixes the metric and dimension;
// stored vectors of another dimension (written under an earlier definition
// of a redefined model) are not candidates.
//
// From the store, the search reads one snapshot of the engine. Without a
// filter it is one scan of the tenant's vectors family. With a filter it
// reads the history of each candidate node instead, which is cheaper
// whenever the filter is a small part of the tenant.
func (s *Store) Search(scope storage.TenantScope, q Query) ([]Hit, error) {
	return s.AppendSearch(nil, scope, q)
}

// AppendSearch is Search appending the hits to dst and returning the
// extended slice (dst unchanged with an error). A search of the in-memory
// index allocates nothing when dst has room for q.K more hits: a caller
// that reuses dst searches without garbage.
func (s *Store) AppendSearch(dst []Hit, scope storage.TenantScope, q Query) ([]Hit, error) {
	if scope.IsZero() || q.K < 1 || q.Method > FromStore {
		return dst, fmt.Errorf("search %q: k=%d, method %d, zero scope=%t: %w", q.Model, q.K, q.Method, scope.IsZero(), ErrInvalidQuery)
	}
	if err := s.ready(); err != nil {
		return dst, fmt.Errorf("search %q: %w", q.Model, err)
	}
	m, err := s.mem.models.lookup(s.eng, q.Model, q.At.Tx)
	if err != nil {
		return dst, fmt.Errorf("search: %w", err)
	}
	if err := checkVector(m, q.Vector); err != nil {
		return dst, fmt.Errorf("search %q: query: %w", q.Model, err)
	}
	if q.Method != FromStore {
		hits, ok, err := s.searchMemory(dst, scope, m, q)
		if err != nil {
			return dst, fmt.Errorf("search %q in %s: %w", q.Model, scope, err)
		}
		if ok {
			return hits, nil
		}
	}
	hits, err := s.searchStore(dst, scope, m, q)
	if err != nil {
		return dst, fmt.Errorf("search %q in %s: %w", q.Model, scope, err)
	}
	return hits, nil
}

// searchStore answers q from one snapshot of the store, appending to dst.
func (s *Store) searchStore(dst []Hit, scope storage.TenantScope, m Model, q Query) ([]Hit, error) {
	// One snapshot for the whole search, so that a filtered search, which
	// reads each candidate separately, sees one state of the store.
	snap, err := s.eng.Snapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	k := newKNN(m.Metric, q.Vector, norm(q.Vector), q.K, dst)
	if q.Filter != nil {
		err = k.filtered(snap, scope, m, q.At, q.Filter.IDs)
	} else {
		err = k.scan(snap, scope, m, q.At)
	}
	if err != nil {
		return nil, err
	}
	return k.result(), nil
}

// searchMemory answers q from the in-memory index of its tenant and model,
// appending to dst, and reports false if the index does not read as of
// q.At.
func (s *Store) searchMemory(dst []Hit, scope storage.TenantScope, m Model, q Query) ([]Hit, bool, error) {
	ix, v, err := s.mem.acquire(s.eng, indexKey{scope: scope, model: m.ID})
	if err != nil {
		return nil, false, err
	}
	hits, ok, graphless := v.search(dst, m, q, &s.opts)
	if graphless != nil {
		ix.wantGraph(graphless, m.Metric, s.opts.graph())
	}
	return hits, ok, nil
}

// knn accumulates the K nearest candidates, to be appended to dst.
type knn struct {
	metric Metric
	query  []float32
	qnorm  float64
	k      int
	heap   worstFirst
	dst    []Hit
}

// newKNN keeps the heap in the room dst has past its length, if that
// holds k candidates (or 64, the bound below), so that the answer is
// sorted where it is returned. Otherwise it makes room for k candidates up
// front (up to a bound, so that a huge k allocates only what it fills),
// where growing would copy the heap four times on the way to ten.
func newKNN(m Metric, q []float32, qnorm float64, k int, dst []Hit) knn {
	room := min(k, 64)
	heap := worstFirst(dst[len(dst):])
	if cap(heap) < room {
		heap = make(worstFirst, 0, room)
	}
	return knn{metric: m, query: q, qnorm: qnorm, k: k, heap: heap, dst: dst}
}

// full reports whether k candidates are kept, so that only a nearer one
// can enter.
func (k *knn) full() bool { return len(k.heap) >= k.k }

// worst returns the distance of the farthest kept candidate.
func (k *knn) worst() float64 { return k.heap[0].Distance }

// offer considers one candidate.
func (k *knn) offer(node uuid.UUID, v []float32) {
	h := Hit{Node: node, Distance: distance(k.metric, k.query, v, k.qnorm)}
	if len(k.heap) < k.k {
		k.heap.push(h)
		return
	}
	if nearer(h, k.heap[0]) {
		k.heap.replace(h)
	}
}

// scan visits every vector row of the tenant once. Rows are ordered by
// node, model, then latest version first, so the first visible row of a
// (node, model) is its current version and the rest are skipped.
func (k *knn) scan(r storage.Reader, scope storage.TenantScope, m Model, at AsOf) error {
	var (
		buf  []float32
		done uuid.UUID // the node whose current version was already seen
	)
	for kv, err := range r.Scan(storage.TenantAll(scope, storage.Vectors)) {
		if err != nil {
			return err
		}
		p, err := storage.DecodeVector(kv.Key)
		if err != nil {
			return err
		}
		if p.Model != m.ID || p.Node == done || !at.visible(p.ValidStart, p.TxStart) {
			continue
		}
		done = p.Node
		v, tomb, err := decodeValue(buf, kv.Value)
		if err != nil {
			return fmt.Errorf("node %s: %w", p.Node, err)
		}
		buf = v
		if tomb || len(v) != m.Dimension {
			continue
		}
		k.offer(p.Node, v)
	}
	return nil
}

// filtered reads the current version of each candidate node, in key order
// so that consecutive seeks touch neighbouring blocks.
func (k *knn) filtered(r storage.Reader, scope storage.TenantScope, m Model, at AsOf, ids []uuid.UUID) error {
	ids = slices.Clone(ids)
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	ids = slices.Compact(ids)
	var buf []float32
	for _, id := range ids {
		v, err := current(r, scope, id, m.ID, at, buf)
		if isNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("node %s: %w", id, err)
		}
		buf = v
		if len(v) == m.Dimension {
			k.offer(id, v)
		}
	}
	return nil
}

// result returns dst with the candidates appended, nearest first. The
// heap is sorted in place; where it lies in dst's room the append copies
// nothing. k is spent.
func (k *knn) result() []Hit {
	k.heap.sort()
	out := append(k.dst, k.heap...)
	k.heap, k.dst = nil, nil
	return out
}

// compareHits orders by distance, then node id: a total order, so results
// are deterministic under ties.
func compareHits(a, b Hit) int {
	switch {
	case a.Distance < b.Distance:
		return -1
	case a.Distance > b.Distance:
		return 1
	}
	return bytes.Compare(a.Node[:], b.Node[:])
}

func nearer(a, b Hit) bool { return compareHits(a, b) < 0 }

// worstFirst is a max-heap of hits: the root is the farthest kept. Its
// own sifts, not container/heap's, so that a push does not box its hit.
type worstFirst []Hit

// push adds x.
func (h *worstFirst) push(x Hit) {
	s := append(*h, x)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !nearer(s[p], x) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = x
	*h = s
}

// replace puts x in place of the root and restores the order below it.
func (h worstFirst) replace(x Hit) {
	i := 0
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if r := c + 1; r < len(h) && nearer(h[c], h[r]) {
			c = r
		}
		if !nearer(x, h[c]) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = x
}

// sort orders h nearest first, in place: heapsort, whose sifts on the
// ten hits of a usual answer take a third of the time of slices.SortFunc.
func (h worstFirst) sort() {
	for end := len(h) - 1; end > 0; end-- {
		x := h[end]
		h[end] = h[0]
		h[:end].replace(x)
	}
}
