package vector

import "telha.dev/vector/internal/hnsw"

// Options tune a Store's in-memory search. The zero value of a field takes
// its default. M and EfConstruction shape the graphs the Store starts; the
// Stores over one engine share their indexes, and a graph keeps the shape
// it was started with.
type Options struct {
	// M is the number of links a node of the approximate graph keeps per
	// level (2M on the lowest). More raises recall and memory (about 12
	// bytes a vector per unit of M). Default 16.
	M int

	// EfConstruction is the width of the search that links a new vector
	// into the graph: wider builds a better graph, more slowly. Default
	// 128.
	EfConstruction int

	// EfSearch is the width of an approximate search: wider finds more of
	// the true nearest neighbours, more slowly. It is raised to K when K is
	// larger. Default 64.
	EfSearch int

	// ExactBelow is the number of vectors a filter (or an unfiltered
	// search, the whole matrix) must allow for an approximate search of
	// width DefaultEfSearch to walk the graph; it scales with the width
	// (twice at ef = 128). Fewer are scanned exactly, which is then both
	// cheaper than the walk and exact; so is a filter that allows fewer
	// than one vector in 2M, where the walk loses recall (plan.go). The
	// default, 5,000, is where the two cost the same on 128 dimensions at
	// ef = 64 (BENCHMARKS.md); a negative value always walks the graph.
	ExactBelow int
}

// Defaults of Options.
const (
	DefaultEfSearch   = 64
	DefaultExactBelow = 5000
)

func (o Options) withDefaults() Options {
	if o.EfSearch <= 0 {
		o.EfSearch = DefaultEfSearch
	}
	if o.ExactBelow == 0 {
		o.ExactBelow = DefaultExactBelow
	}
	return o
}

func (o *Options) graph() hnsw.Config {
	return hnsw.Config{M: o.M, EfConstruction: o.EfConstruction}
}
