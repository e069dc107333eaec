package graph

import (
	"errors"
	"math"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

// TestHostileQueries: bad directions and limits are refused before any
// lookup, whatever else the query says; huge limits are bounded by the
// graph; a graph without an engine fails with storage.ErrNotOpen.
func TestHostileQueries(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		g := Open(env.Engine, Options{Clock: fixedClock()})
		scope := storagetest.TenantScope(t)
		buildGraph(t, g, scope)
		now := temporal.Current(10)
		if _, err := g.Neighbors(scope, node(1), Direction(0), now, "NEVER_REGISTERED"); !errors.Is(err, ErrBadDirection) {
			t.Errorf("direction 0 with an unknown type: %v", err)
		}
		for _, tr := range []Traversal{
			{Direction: Out, MaxDepth: -1, MaxVisited: 1},
			{Direction: Out, MaxDepth: 1, MaxVisited: 0},
			{Direction: 7, MaxDepth: 1, MaxVisited: 1},
		} {
			if _, _, err := g.KHop(scope, node(1), now, tr); !errors.Is(err, ErrBadLimit) && !errors.Is(err, ErrBadDirection) {
				t.Errorf("k-hop %+v: %v", tr, err)
			}
			if _, err := g.ShortestPath(scope, node(1), node(5), now, tr); !errors.Is(err, ErrBadLimit) && !errors.Is(err, ErrBadDirection) {
				t.Errorf("shortest path %+v: %v", tr, err)
			}
		}
		huge := Traversal{Direction: Both, MaxDepth: math.MaxInt, MaxVisited: math.MaxInt}
		visits, truncated, err := g.KHop(scope, node(1), now, huge)
		if err != nil || truncated || len(visits) != 7 {
			t.Errorf("k-hop without limits: %d visits, truncated %t, %v; want the 7 connected nodes", len(visits), truncated, err)
		}
		var zero storage.TenantScope
		if _, err := g.Neighbors(zero, node(1), Out, now); !errors.Is(err, storage.ErrNilScope) {
			t.Errorf("zero scope: %v", err)
		}
		if _, err := g.Neighbors(zero, node(1), Out, now, "KNOWS"); !errors.Is(err, storage.ErrNilScope) {
			t.Errorf("zero scope with a type: %v", err)
		}
	})
	none := Open(nil, Options{})
	scope := storagetest.TenantScope(t)
	if _, err := none.Neighbors(scope, node(1), Out, temporal.Current(1), "KNOWS"); !errors.Is(err, storage.ErrNotOpen) {
		t.Errorf("graph without an engine: %v", err)
	}
	if _, _, err := none.KHop(scope, node(1), temporal.Current(1), Traversal{Direction: Out, MaxVisited: 1}); !errors.Is(err, storage.ErrNotOpen) {
		t.Errorf("k-hop without an engine: %v", err)
	}
}
