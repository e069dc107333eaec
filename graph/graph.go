package graph

import (
	"fmt"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/temporal"
)

// Direction selects which edges of a node a query follows.
type Direction uint8

// The directions.
const (
	Out  Direction = 1 // edges from the node
	In   Direction = 2 // edges to the node
	Both Direction = 3 // either
)

func (d Direction) temporal() []temporal.Direction {
	switch d {
	case Out:
		return []temporal.Direction{temporal.Out}
	case In:
		return []temporal.Direction{temporal.In}
	case Both:
		return []temporal.Direction{temporal.Out, temporal.In}
	}
	return nil
}

// Options configure a Graph.
type Options struct {
	// Clock hands out transaction times; nil means a new wall clock.
	Clock *temporal.Clock
	// Indexers see every node write; see temporal.Indexer.
	Indexers []temporal.Indexer
	// HashEdgeType hashes edge type names; nil means storage.HashEdgeType.
	HashEdgeType func(string) storage.EdgeTypeHash
}

// Graph is a temporal.Store whose edge types are registered in a
// temporal.EdgeTypeRegistry, with graph queries on top. It is safe for
// concurrent use.
type Graph struct {
	store *temporal.Store
	types *temporal.EdgeTypeRegistry
}

// Open returns a Graph over e. Write nodes and edges through Store.
func Open(e storage.Engine, opts Options) *Graph {
	types := temporal.NewEdgeTypeRegistry(e, opts.HashEdgeType)
	store := temporal.Open(e, temporal.Options{Clock: opts.Clock, EdgeTypes: types, Indexers: opts.Indexers})
	return &Graph{store: store, types: types}
}

// Store returns the bitemporal store that writes the graph.
func (g *Graph) Store() *temporal.Store { return g.store }

// EdgeTypeRegistry returns the registry of the graph's edge types.
func (g *Graph) EdgeTypeRegistry() *temporal.EdgeTypeRegistry { return g.types }

// Neighbor is one edge of a node, seen from that node.
type Neighbor struct {
	Node      uuid.UUID // the node at the other end
	Edge      uuid.UUID
	Type      string
	Direction Direction // Out or In, seen from the queried node
}

// Neighbors returns the edges of node in direction dir true at a.Valid as
// known at a.Tx, restricted to the named types when any are given. A type
// that was never registered matches no edge.
func (g *Graph) Neighbors(scope storage.TenantScope, node uuid.UUID, dir Direction, a temporal.AsOf, types ...string) ([]Neighbor, error) {
	if dir.temporal() == nil {
		return nil, fmt.Errorf("neighbors of %s: direction %d: %w", node, dir, ErrBadDirection)
	}
	hashes, found, err := g.typeHashes(scope, types)
	if err != nil || !found {
		return nil, err
	}
	return g.neighbors(scope, node, dir, a, hashes, nil)
}

// typeHashes resolves type names for a filter; found is false when a
// filter was given but none of its types exists. Every query calls it
// first: it validates what the registry caches of the tenant against the
// store (storage.RefreshTenant: another process may have wiped or erased
// it), before the query resolves a name or a hash.
func (g *Graph) typeHashes(scope storage.TenantScope, types []string) (hashes []storage.EdgeTypeHash, found bool, err error) {
	if err := storage.RefreshTenant(g.store.Engine(), scope); err != nil {
		return nil, false, err
	}
	if len(types) == 0 {
		return nil, true, nil
	}
	for _, name := range types {
		h, err := g.types.Hash(scope, name)
		if isUnknown(err) {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		hashes = append(hashes, h)
	}
	return hashes, len(hashes) > 0, nil
}

// neighbors appends the neighbours of node to dst.
func (g *Graph) neighbors(scope storage.TenantScope, node uuid.UUID, dir Direction, a temporal.AsOf, hashes []storage.EdgeTypeHash, dst []Neighbor) ([]Neighbor, error) {
	dirs := dir.temporal()
	if dirs == nil {
		return nil, fmt.Errorf("neighbors of %s: direction %d: %w", node, dir, ErrBadDirection)
	}
	for _, d := range dirs {
		adj, err := g.store.Adjacent(scope, node, d, hashes, a)
		if err != nil {
			return nil, fmt.Errorf("neighbors of %s: %w", node, err)
		}
		for _, x := range adj {
			name, err := g.types.Name(scope, x.EdgeType)
			if err != nil {
				return nil, fmt.Errorf("neighbors of %s: %w", node, err)
			}
			nd := Out
			if d == temporal.In {
				nd = In
			}
			dst = append(dst, Neighbor{Node: x.Neighbor, Edge: x.Edge, Type: name, Direction: nd})
		}
	}
	return dst, nil
}
