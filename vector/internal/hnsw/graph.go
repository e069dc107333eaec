package hnsw

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"

	"telha.dev/vector/internal/kernel"
)

// Config sets the shape of a graph. The zero value of a field takes its
// default.
type Config struct {
	// M is the number of links a node keeps on each upper level; level 0
	// keeps 2M. More links raise recall and memory. Default 16.
	M int

	// EfConstruction is the width of the search that finds a new node's
	// neighbours. Wider builds a better graph, more slowly. Default 128.
	EfConstruction int

	// Seed seeds the level generator.
	Seed uint64
}

// Defaults of Config.
const (
	DefaultM              = 16
	DefaultEfConstruction = 128
)

// maxLevel bounds the level of a node. At M = 16 a level above 12 has
// probability 16^-13 per node: the bound only guards the level array's
// byte against a broken generator.
const maxLevel = 12

// Space gives the distance between two stored points, lower is nearer. It
// must be symmetric; a NaN is read as +Inf.
type Space interface {
	Distance(a, b uint32) float32
}

// QuerySpace is a Space that also measures from one of its points in
// batches: Add then finds a new node's neighbours through From(id), the
// same batched walk a search makes, where a plain Space is called once
// per distance. From(a) must measure what Distance(a, ·) does, without
// NaNs.
type QuerySpace interface {
	Space
	From(a uint32) Query
}

// Result is one node of a search answer.
type Result struct {
	ID       uint32
	Distance float32
}

// Graph is an HNSW graph over the ids 0 … Len()-1. One goroutine at a
// time may Add; searches run beside it on Snapshots (see the package
// documentation's Concurrency).
type Graph struct {
	View // the graph as Add grows it
	efc  int
	ml   float64
	rng  *rand.Rand
}

// View is a graph as of a Snapshot: its nodes and their levels, with the
// links each node has whenever a search reads them. Flat arrays without
// pointers keep the graph out of the garbage collector's way.
type View struct {
	m, m0 int

	entry uint32
	top   int // level of entry; -1 while the graph is empty

	levels []uint8  // level of each node
	count0 []uint32 // links of each node on level 0
	links0 []uint32 // m0 link slots per node on level 0
	// Levels 1…level of a node are (m+1) words each, [count, links…], from
	// upperAt[node] on in upper.
	upperAt []uint32
	upper   []uint32

	scratch *sync.Pool // *walk, shared by the graph and its snapshots
}

// New returns an empty graph.
func New(c Config) *Graph {
	if c.M <= 0 {
		c.M = DefaultM
	}
	c.M = min(c.M, math.MaxUint8/2)
	if c.EfConstruction <= 0 {
		c.EfConstruction = DefaultEfConstruction
	}
	return &Graph{
		View: View{m: c.M, m0: 2 * c.M, top: -1, scratch: new(sync.Pool)},
		efc:  max(c.EfConstruction, c.M),
		ml:   1 / math.Log(float64(max(c.M, 2))),
		rng:  rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15)),
	}
}

// Snapshot returns the graph as it is now, for searches that run while
// later Adds go on. It must not run beside an Add.
func (g *Graph) Snapshot() *View {
	v := g.View
	return &v
}

// Len returns the number of nodes.
func (v *View) Len() int { return len(v.levels) }

// Bytes returns the memory the graph's links hold.
func (v *View) Bytes() int64 {
	return int64(cap(v.levels)) + 4*int64(cap(v.count0)+cap(v.links0)+cap(v.upperAt)+cap(v.upper))
}

// drawLevel draws a node's level: floor(-ln(u)·ml), the geometric
// distribution of the paper.
func (g *Graph) drawLevel() int {
	u := 1 - g.rng.Float64() // in (0, 1]
	return min(int(-math.Log(u)*g.ml), maxLevel)
}

// words returns the count word and the link words of id on level l.
func (v *View) words(id uint32, l int) (count *uint32, links []uint32) {
	if l == 0 {
		at := int(id) * v.m0
		return &v.count0[id], v.links0[at : at+v.m0]
	}
	block := v.block(id, l)
	return &block[0], block[1:]
}

// links returns the links of id on level l, as Add reads them: it is the
// one writer, so its own reads need not be atomic.
func (g *Graph) links(id uint32, l int) []uint32 {
	count, words := g.words(id, l)
	return words[:*count]
}

// linkWords returns the words of the links of id on level l, as many as
// its count says when loaded. An Add may be storing them: each must be
// loaded atomically, and may name a node past v (loadLinks).
func (v *View) linkWords(id uint32, l int) []uint32 {
	count, words := v.words(id, l)
	return words[:min(int(atomic.LoadUint32(count)), len(words))]
}

// loadLinks appends to dst the links of id on level l that lead to nodes
// of v. Each word is loaded atomically, since an Add may be storing it:
// the list read may mix the links it had and the links it gets, which
// changes where a walk goes, never whether it is safe, and a link to a
// node added after the snapshot is left out.
func (v *View) loadLinks(dst []uint32, id uint32, l int) []uint32 {
	words := v.linkWords(id, l)
	nodes := uint32(len(v.levels))
	dst = slices.Grow(dst, len(words))
	out := dst[len(dst) : len(dst)+len(words)]
	kept := 0
	for i := range words {
		to := atomic.LoadUint32(&words[i])
		out[kept] = to
		if to < nodes {
			kept++
		}
	}
	return dst[:len(dst)+kept]
}

// prefetchLinks asks the CPU for the links of id on level l, which a walk
// is about to read: a random read of the link arrays, whose miss would
// otherwise stall the walk when it comes to them. It reads no count, so
// the request itself waits for nothing.
func (v *View) prefetchLinks(id uint32, l int) {
	if l == 0 {
		at := int(id) * v.m0
		kernel.Prefetch(v.links0[at : at+v.m0])
		return
	}
	kernel.Prefetch(v.block(id, l))
}

// block returns the words of id on level l ≥ 1: [count, links…].
func (v *View) block(id uint32, l int) []uint32 {
	at := int(v.upperAt[id]) + (l-1)*(v.m+1)
	return v.upper[at : at+v.m+1]
}

// setLinks replaces the links of id on level l. The words are stored
// atomically, for the searches that read them meanwhile.
func (g *Graph) setLinks(id uint32, l int, to []item) {
	count, dst := g.words(id, l)
	for i, it := range to {
		atomic.StoreUint32(&dst[i], it.node())
	}
	atomic.StoreUint32(count, uint32(len(to)))
}

// capacity is the number of links a node keeps on level l.
func (g *Graph) capacity(l int) int {
	if l == 0 {
		return g.m0
	}
	return g.m
}

// Add inserts the next node, id Len(), and returns its id. s must measure
// it and every node before it.
func (g *Graph) Add(s Space) uint32 {
	id := uint32(g.Len())
	level := g.drawLevel()
	g.levels = append(g.levels, uint8(level))
	g.count0 = append(g.count0, 0)
	g.links0 = append(g.links0, make([]uint32, g.m0)...)
	g.upperAt = append(g.upperAt, uint32(len(g.upper)))
	g.upper = append(g.upper, make([]uint32, level*(g.m+1))...)
	if g.top < 0 {
		g.entry, g.top = id, level
		return id
	}

	w := g.walk()
	defer g.scratch.Put(w)
	var query Query
	if qs, ok := s.(QuerySpace); ok {
		query = qs.From(id)
	} else {
		query = QueryFunc(func(n uint32) float32 { return s.Distance(id, n) })
	}
	ep := newItem(w.measureOne(query, g.entry), g.entry)
	for l := g.top; l > level; l-- {
		ep = g.greedy(w, ep, query, l)
	}
	w.entries = append(w.entries[:0], ep)
	for l := min(level, g.top); l >= 0; l-- {
		w.found = g.searchLevel(w, w.entries, query, g.efc, l, Filter{}, w.found[:0])
		chosen := g.diverse(s, w.found, g.m, w.chosen[:0])
		w.chosen = chosen
		g.setLinks(id, l, chosen)
		for _, c := range chosen {
			g.backLink(s, w, c.node(), newItem(c.dist(), id), l)
		}
		w.entries = append(w.entries[:0], w.found...)
	}
	if level > g.top {
		g.entry, g.top = id, level
	}
	return id
}

// backLink adds the link from -> to.node() on level l; a full list is pruned
// with the diversity rule over its links and the new one.
func (g *Graph) backLink(s Space, w *walk, from uint32, to item, l int) {
	have := g.links(from, l)
	if len(have) < g.capacity(l) {
		// The link before the count, so that a search that reads the new
		// count reads the link.
		count, dst := g.words(from, l)
		atomic.StoreUint32(&dst[len(have)], to.node())
		atomic.StoreUint32(count, uint32(len(have)+1))
		return
	}
	cands := append(w.prune[:0], to)
	for _, n := range have {
		cands = append(cands, newItem(measureBetween(s, from, n), n))
	}
	slices.SortFunc(cands, compare)
	w.prune = cands
	kept := g.diverse(s, cands, g.capacity(l), w.kept[:0])
	w.kept = kept
	g.setLinks(from, l, kept)
}

// diverse picks up to n of cands (sorted nearest first) by the paper's
// heuristic: a candidate is kept only if it is nearer to the base than to
// every candidate kept before it, so links spread in all directions
// instead of bunching in one cluster.
func (g *Graph) diverse(s Space, cands []item, n int, dst []item) []item {
	for _, c := range cands {
		if len(dst) >= n {
			break
		}
		keep := true
		for _, k := range dst {
			if measureBetween(s, c.node(), k.node()) < c.dist() {
				keep = false
				break
			}
		}
		if keep {
			dst = append(dst, c)
		}
	}
	return dst
}

func compare(a, b item) int {
	switch {
	case a.before(b):
		return -1
	case b.before(a):
		return 1
	}
	return 0
}

func measureBetween(s Space, a, b uint32) float32 {
	d := s.Distance(a, b)
	if d != d {
		return float32(math.Inf(1))
	}
	return d
}
