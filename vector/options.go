package vector

import "telha.dev/vector/internal/hnsw"

// Options tune a Store's in-memory search. The zero value of a field takes
// its default.
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

	// ExactBelow is the number of vectors a filter must allow for an
	// approximate search to walk the graph: a filter that allows fewer is
	// answered by an exact scan of the vectors it allows, which is then
	// both cheaper than the walk (most of the graph's nodes would be
	// filtered out) and exact. Default 1,000; a negative value always walks
	// the graph.
	ExactBelow int
}

// Defaults of Options.
const (
	DefaultEfSearch   = 64
	DefaultExactBelow = 1000
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
