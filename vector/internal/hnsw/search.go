package hnsw

import (
	"math"
	"sync/atomic"
)

// Query measures the distances from the point a search looks for, lower
// is nearer. A search measures the unvisited links of a node together, so
// that the caller can fetch their vectors in parallel before computing
// (the memory stalls of those reads, not the arithmetic, are what a walk
// over a large matrix waits for), and the walk pays one dynamic call per
// node it explores rather than one per distance.
type Query interface {
	// Distances sets out[i] to the distance of ids[i]; len(out) ==
	// len(ids). A distance must not be NaN: the heaps need a total order,
	// and the walk does not check (telha.dev/vector's vectors are finite,
	// and its kernel falls back to float64 where float32 overflows).
	Distances(ids []uint32, out []float32)
}

// QueryFunc is a Query that measures one node at a time, a NaN read as
// +Inf: the convenient form for tests and small callers.
type QueryFunc func(id uint32) float32

// Distances implements Query.
func (f QueryFunc) Distances(ids []uint32, out []float32) {
	for i, id := range ids {
		d := f(id)
		if d != d {
			d = float32(math.Inf(1))
		}
		out[i] = d
	}
}

// walk is the scratch space of one search or insert, pooled per graph.
type walk struct {
	seen     visited
	frontier nearest
	results  farthest
	entries  []item
	found    []item
	chosen   []item
	prune    []item
	kept     []item
	batch    []uint32  // the nodes measured together
	dists    []float32 // their distances
	links    []uint32  // the links of the node explored

	// the walk in progress
	ef      int
	query   Query
	allowed []uint64
}

func (v *View) walk() *walk {
	w, _ := v.scratch.Get().(*walk)
	if w == nil {
		w = new(walk)
	}
	return w
}

// measure measures the nodes of w.batch into w.dists.
func (w *walk) measure(q Query) []float32 {
	if cap(w.dists) < len(w.batch) {
		w.dists = make([]float32, len(w.batch), 2*len(w.batch))
	}
	d := w.dists[:len(w.batch)]
	q.Distances(w.batch, d)
	return d
}

// measureOne measures one node.
func (w *walk) measureOne(q Query, id uint32) float32 {
	w.batch = append(w.batch[:0], id)
	return w.measure(q)[0]
}

// Filter restricts a search to the nodes of Allowed, a bitset (node id
// holds bit id%64 of word id/64); a nil Allowed allows every node, and an
// id past its end is rejected. A bitset rather than a function: the
// sparse walk tests a node for every link it reads, most of them twice
// removed, where a call each cost a fifth of its time (BENCHMARKS.md).
//
// Dense says that Allow accepts a large share of the nodes (a quarter or
// more): the walk then measures every neighbour, as an unfiltered walk
// does, and follows rejected ones without returning them, as hnswlib's
// filtered search does. A sparse filter is walked as ACORN does (see
// searchLevel), which measures allowed nodes only but reads the links of
// rejected ones to reach past them: a random read per rejected neighbour,
// which a dense filter pays on most nodes for distances it mostly has to
// measure anyway. At half the nodes allowed the dense walk reaches a
// recall of 0.99 at a narrower ef and in less time (BENCHMARKS.md).
type Filter struct {
	Allowed []uint64
	Dense   bool
}

// Search returns up to k allowed nodes nearest to the point that query
// measures, nearest first (ties by id). ef (raised to k) is the width of
// the walk on level 0: wider finds more of the true nearest, more slowly.
// allow filters during the walk; nil allows every node.
func (v *View) Search(query func(id uint32) float32, k, ef int, allow func(id uint32) bool) []Result {
	return v.SearchQuery(QueryFunc(query), k, ef, Filter{Allowed: bitsetOf(v.Len(), allow)}, nil)
}

// bitsetOf returns the bitset (Filter.Allowed) of the nodes below n that
// allow accepts, nil for a nil allow.
func bitsetOf(n int, allow func(id uint32) bool) []uint64 {
	if allow == nil {
		return nil
	}
	bits := make([]uint64, (n+63)/64)
	for id := range uint32(n) {
		if allow(id) {
			bits[id/64] |= 1 << (id % 64)
		}
	}
	return bits
}

// allows reports whether the bitset allowed (Filter.Allowed) holds id.
func allows(allowed []uint64, id uint32) bool {
	if allowed == nil {
		return true
	}
	w := int(id / 64)
	return w < len(allowed) && allowed[w]&(1<<(id%64)) != 0
}

// SearchQuery is Search with a Query and a Filter, appending the answer
// to dst (a search that reuses dst allocates nothing).
func (v *View) SearchQuery(q Query, k, ef int, f Filter, dst []Result) []Result {
	if v.top < 0 || k < 1 {
		return dst
	}
	w := v.walk()
	defer v.scratch.Put(w)
	ep := newItem(w.measureOne(q, v.entry), v.entry)
	for l := v.top; l > 0; l-- {
		ep = v.greedy(w, ep, q, l)
	}
	w.entries = append(w.entries[:0], ep)
	w.found = v.searchLevel(w, w.entries, q, max(ef, k), 0, f, w.found[:0])
	for _, it := range w.found[:min(k, len(w.found))] {
		dst = append(dst, Result{ID: it.node(), Distance: it.dist()})
	}
	return dst
}

// greedy walks level l from ep to a local minimum of q.
func (v *View) greedy(w *walk, ep item, q Query, l int) item {
	for moved := true; moved; {
		moved = false
		w.batch = v.loadLinks(w.batch[:0], ep.node(), l)
		d := w.measure(q)
		for i, n := range w.batch {
			if it := newItem(d[i], n); it.before(ep) {
				ep, moved = it, true
			}
		}
	}
	return ep
}

// searchLevel is the beam search of the paper on level l. It appends to
// dst, nearest first, up to ef allowed nodes: the walk stops when the
// nearest unexplored node is farther than the farthest of ef allowed
// nodes found, or when nothing is left to explore.
//
// A filter is applied during the walk as ACORN does (Patel et al.,
// "ACORN: Performant and Predicate-Agnostic Search Over Vector
// Embeddings and Structured Data", SIGMOD 2024): only allowed nodes are
// measured and explored, and a link to a node the filter rejects is
// followed through it to that node's own links, one hop further. A node
// the filter rejects is so never measured, which at a selectivity of 10%
// saves nine distances in ten, while the two-hop neighbourhood (up to
// (2M)² nodes) keeps the allowed nodes connected down to a selectivity of
// about 1/2M. The entry points are explored whether allowed or not. A
// dense filter (Filter.Dense) is applied to the results only.
func (v *View) searchLevel(w *walk, entries []item, q Query, ef, l int, f Filter, dst []item) []item {
	allowed := f.Allowed
	nodes := uint32(v.Len())
	w.seen.reset(v.Len())
	w.frontier = w.frontier[:0]
	w.results.reset()
	w.ef, w.query, w.allowed = ef, q, allowed
	for _, e := range entries {
		if w.seen.visit(e.node()) {
			w.frontier.push(e)
			w.offer(e)
		}
	}
	for w.frontier.len() > 0 {
		c := w.frontier.pop()
		if w.results.full(ef) && w.results.root().before(c) {
			break
		}
		if w.frontier.len() > 0 {
			// The node explored next, unless c's links bring a nearer
			// one: its links, a random read, arrive while c's are
			// measured.
			v.prefetchLinks(w.frontier.root().node(), l)
		}
		w.batch = w.batch[:0]
		if allowed == nil || f.Dense {
			v.visitLinks(w, c.node(), l)
		} else {
			w.links = v.loadLinks(w.links[:0], c.node(), l)
			links := w.links
			// Direct links first, then two hops through rejected ones, up
			// to as many allowed nodes as a node has links (ACORN-1's
			// bound).
			budget := len(links)
			for _, n := range links {
				if !allows(allowed, n) {
					// The second loop may read its links: ask for
					// them now, so that those misses overlap.
					v.prefetchLinks(n, l)
				} else if budget > 0 && w.seen.visit(n) {
					w.batch = append(w.batch, n)
					budget--
				}
			}
			for _, n := range links {
				if budget == 0 {
					break
				}
				if allows(allowed, n) || !w.seen.visit(n) {
					continue
				}
				hop := v.linkWords(n, l)
				for i := 0; i < len(hop) && budget > 0; i++ {
					if n2 := atomic.LoadUint32(&hop[i]); n2 < nodes && allows(allowed, n2) && w.seen.visit(n2) {
						w.batch = append(w.batch, n2)
						budget--
					}
				}
			}
		}
		w.reach()
	}
	w.query, w.allowed = nil, nil
	return w.results.drain(dst)
}

// visitLinks appends to w.batch the links of id on level l that lead to
// nodes of v the walk has not visited, marking them: loadLinks and the
// visit in one pass, where the reads of the links overlap the marks.
func (v *View) visitLinks(w *walk, id uint32, l int) {
	words := v.linkWords(id, l)
	nodes := uint32(len(v.levels))
	for i := range words {
		if to := atomic.LoadUint32(&words[i]); to < nodes && w.seen.visit(to) {
			w.batch = append(w.batch, to)
		}
	}
}

// reach measures the nodes of w.batch, allowed nodes the walk has come to
// for the first time, and keeps each that may be among the ef nearest.
func (w *walk) reach() {
	if len(w.batch) == 0 {
		return
	}
	d := w.measure(w.query)
	for i, n := range w.batch {
		it := newItem(d[i], n)
		if !w.results.full(w.ef) || it.before(w.results.root()) {
			w.frontier.push(it)
			w.offer(it)
		}
	}
}

// offer keeps it among the results if it is allowed, to at most ef.
func (w *walk) offer(it item) {
	if !allows(w.allowed, it.node()) {
		return
	}
	switch {
	case !w.results.full(w.ef):
		w.results.push(it)
	case it.before(w.results.root()):
		w.results.replace(it)
	}
}
