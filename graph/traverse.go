package graph

import (
	"fmt"
	"slices"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/temporal"
)

// Traversal bounds a breadth-first walk.
type Traversal struct {
	Direction  Direction // Out, In or Both
	Types      []string  // edge types to follow; all when empty
	MaxDepth   int       // hops from the start, at least 0
	MaxVisited int       // distinct nodes to visit, start included, at least 1
}

func (t Traversal) check() error {
	if t.MaxDepth < 0 || t.MaxVisited < 1 {
		return fmt.Errorf("max depth %d, max visited %d: %w", t.MaxDepth, t.MaxVisited, ErrBadLimit)
	}
	if t.Direction.temporal() == nil {
		return fmt.Errorf("direction %d: %w", t.Direction, ErrBadDirection)
	}
	return nil
}

// Visit is one node reached by a traversal.
type Visit struct {
	Node  uuid.UUID
	Depth int
	// Via is the edge that first reached the node; zero for the start.
	Via Neighbor
	// Parent is the node Via leads from; uuid.Nil for the start.
	Parent uuid.UUID
}

// KHop walks breadth-first from start as of a, up to t.MaxDepth hops and
// t.MaxVisited distinct nodes, and returns the visits in BFS order, the
// start first at depth 0. truncated reports that MaxVisited cut the walk
// short. The start must exist as of a (temporal.ErrNotFound otherwise).
func (g *Graph) KHop(scope storage.TenantScope, start uuid.UUID, a temporal.AsOf, t Traversal) (visits []Visit, truncated bool, err error) {
	return g.bfs(scope, start, uuid.Nil, a, t)
}

// bfs walks as KHop does and stops early once it reaches goal.
func (g *Graph) bfs(scope storage.TenantScope, start, goal uuid.UUID, a temporal.AsOf, t Traversal) (visits []Visit, truncated bool, err error) {
	if err := t.check(); err != nil {
		return nil, false, fmt.Errorf("k-hop from %s: %w", start, err)
	}
	if _, err := g.store.NodeAsOf(scope, start, a); err != nil {
		return nil, false, fmt.Errorf("k-hop from %s: %w", start, err)
	}
	hashes, found, err := g.typeHashes(scope, t.Types)
	if err != nil {
		return nil, false, err
	}
	visits = []Visit{{Node: start}}
	if !found {
		return visits, false, nil
	}
	seen := map[uuid.UUID]bool{start: true}
	var buf []Neighbor
	for head := 0; head < len(visits); head++ {
		cur := visits[head]
		if cur.Depth == t.MaxDepth {
			continue
		}
		if buf, err = g.neighbors(scope, cur.Node, t.Direction, a, hashes, buf[:0]); err != nil {
			return nil, false, err
		}
		for _, n := range buf {
			if seen[n.Node] {
				continue
			}
			if len(visits) == t.MaxVisited {
				return visits, true, nil
			}
			seen[n.Node] = true
			visits = append(visits, Visit{Node: n.Node, Depth: cur.Depth + 1, Via: n, Parent: cur.Node})
			if n.Node == goal {
				return visits, false, nil
			}
		}
	}
	return visits, false, nil
}

// ShortestPath returns the edges of a shortest path from one node to
// another as of a, found breadth-first within t's limits, in order from
// the first node; an empty path when from == to. It fails with ErrNoPath
// when the limits are reached or the graph is exhausted first.
func (g *Graph) ShortestPath(scope storage.TenantScope, from, to uuid.UUID, a temporal.AsOf, t Traversal) ([]Neighbor, error) {
	if _, err := g.store.NodeAsOf(scope, to, a); err != nil {
		return nil, fmt.Errorf("shortest path to %s: %w", to, err)
	}
	visits, _, err := g.bfs(scope, from, to, a, t)
	if err != nil {
		return nil, fmt.Errorf("shortest path from %s: %w", from, err)
	}
	at := -1
	index := make(map[uuid.UUID]int, len(visits))
	for i, v := range visits {
		index[v.Node] = i
		if v.Node == to {
			at = i
			break
		}
	}
	if at < 0 {
		return nil, fmt.Errorf("from %s to %s within depth %d and %d nodes: %w", from, to, t.MaxDepth, t.MaxVisited, ErrNoPath)
	}
	var path []Neighbor
	for v := visits[at]; v.Parent != uuid.Nil; v = visits[index[v.Parent]] {
		path = append(path, v.Via)
	}
	slices.Reverse(path)
	return path, nil
}
