package hnsw

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"

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

// Graph is an HNSW graph over the ids 0 … Len()-1.
type Graph struct {
	m, m0, efc int
	ml         float64
	rng        *rand.Rand

	entry uint32
	top   int // level of entry; -1 while the graph is empty

	levels []uint8  // level of each node
	count0 []uint8  // links of each node on level 0
	links0 []uint32 // m0 link slots per node on level 0
	// Levels 1…level of a node are (m+1) words each, [count, links…], from
	// upperAt[node] on in upper. Flat arrays without pointers keep the
	// graph out of the garbage collector's way.
	upperAt []uint32
	upper   []uint32

	scratch sync.Pool // *walk
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
		m: c.M, m0: 2 * c.M, efc: max(c.EfConstruction, c.M),
		ml:  1 / math.Log(float64(max(c.M, 2))),
		rng: rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15)),
		top: -1,
	}
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.levels) }

// Bytes returns the memory the graph's links hold.
func (g *Graph) Bytes() int64 {
	return int64(cap(g.levels)+cap(g.count0)) + 4*int64(cap(g.links0)+cap(g.upperAt)+cap(g.upper))
}

// drawLevel draws a node's level: floor(-ln(u)·ml), the geometric
// distribution of the paper.
func (g *Graph) drawLevel() int {
	u := 1 - g.rng.Float64() // in (0, 1]
	return min(int(-math.Log(u)*g.ml), maxLevel)
}

// links returns the links of id on level l.
func (g *Graph) links(id uint32, l int) []uint32 {
	if l == 0 {
		at := int(id) * g.m0
		return g.links0[at : at+int(g.count0[id])]
	}
	block := g.block(id, l)
	return block[1 : 1+block[0]]
}

// prefetchLinks asks the CPU for the links of id on level l, which a walk
// is about to read: a random read of the link arrays, whose miss would
// otherwise stall the walk when it comes to them. It reads no count, so
// the request itself waits for nothing.
func (g *Graph) prefetchLinks(id uint32, l int) {
	if l == 0 {
		at := int(id) * g.m0
		kernel.Prefetch(g.links0[at : at+g.m0])
		return
	}
	kernel.Prefetch(g.block(id, l))
}

// block returns the words of id on level l ≥ 1: [count, links…].
func (g *Graph) block(id uint32, l int) []uint32 {
	at := int(g.upperAt[id]) + (l-1)*(g.m+1)
	return g.upper[at : at+g.m+1]
}

// setLinks replaces the links of id on level l.
func (g *Graph) setLinks(id uint32, l int, to []item) {
	var dst []uint32
	if l == 0 {
		g.count0[id] = uint8(len(to))
		dst = g.links0[int(id)*g.m0:]
	} else {
		block := g.block(id, l)
		block[0] = uint32(len(to))
		dst = block[1:]
	}
	for i, it := range to {
		dst[i] = it.node()
	}
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
		if l == 0 {
			g.links0[int(from)*g.m0+len(have)] = to.node()
			g.count0[from]++
		} else {
			block := g.block(from, l)
			block[1+block[0]] = to.node()
			block[0]++
		}
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
