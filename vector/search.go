package vector

import (
	"bytes"
	"container/heap"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"telha.dev/core/storage"
	"telha.dev/core/storage/system/models"
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
}

// Filter is a set of candidate nodes.
type Filter struct {
	IDs []uuid.UUID
}

// Hit is one neighbour.
type Hit struct {
	Node     uuid.UUID
	Distance float64 // lower is nearer; see the metric constants
}

// Search returns the K nearest neighbours of q.Vector among the tenant's
// vectors under q.Model as of q.At, nearest first, ties broken by node id.
// The search is exact (brute force, recall 1.0) with a bounded heap of K
// entries.
//
// The model version current at q.At.Tx fixes the metric and dimension;
// stored vectors of another dimension (written under an earlier definition
// of a redefined model) are not candidates.
//
// The search reads one snapshot of the engine. Without a filter it is one
// scan of the tenant's vectors family. With a filter it reads the history
// of each candidate node instead, which is cheaper whenever the filter is a
// small part of the tenant.
func (s *Store) Search(scope storage.TenantScope, q Query) ([]Hit, error) {
	if scope.IsZero() || q.K < 1 {
		return nil, fmt.Errorf("search %q: k=%d, zero scope=%t: %w", q.Model, q.K, scope.IsZero(), ErrInvalidQuery)
	}
	if s.eng == nil {
		return nil, fmt.Errorf("search %q: %w", q.Model, ErrNoEngine)
	}
	// One snapshot for the whole search, so that a filtered search, which
	// reads each candidate separately, sees one state of the store.
	snap, err := s.eng.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", q.Model, err)
	}
	defer snap.Close()
	m, err := models.LookupModelAsOf(snap, q.Model, q.At.Tx)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if err := checkVector(m, q.Vector); err != nil {
		return nil, fmt.Errorf("search %q: query: %w", q.Model, err)
	}
	k := knn{metric: m.Metric, query: q.Vector, qnorm: norm(q.Vector), k: q.K}
	if q.Filter != nil {
		err = k.filtered(snap, scope, m, q.At, q.Filter.IDs)
	} else {
		err = k.scan(snap, scope, m, q.At)
	}
	if err != nil {
		return nil, fmt.Errorf("search %q in %s: %w", q.Model, scope, err)
	}
	return k.result(), nil
}

// knn accumulates the K nearest candidates.
type knn struct {
	metric Metric
	query  []float32
	qnorm  float64
	k      int
	heap   worstFirst
}

// offer considers one candidate.
func (k *knn) offer(node uuid.UUID, v []float32) {
	h := Hit{Node: node, Distance: distance(k.metric, k.query, v, k.qnorm)}
	if len(k.heap) < k.k {
		heap.Push(&k.heap, h)
		return
	}
	if nearer(h, k.heap[0]) {
		k.heap[0] = h
		heap.Fix(&k.heap, 0)
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

// result drains the heap, nearest first.
func (k *knn) result() []Hit {
	out := slices.Clone(k.heap)
	slices.SortFunc(out, compareHits)
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

// worstFirst is a max-heap of hits: the root is the farthest kept.
type worstFirst []Hit

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return nearer(h[j], h[i]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(Hit)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
