package graph

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

// The test graph, all edges valid from 0 unless noted:
//
//	1 -KNOWS-> 2 -KNOWS-> 3 -KNOWS-> 4 -KNOWS-> 5
//	1 -WORKS_WITH-> 6 -WORKS_WITH-> 4
//	7 -KNOWS-> 1        (valid only in [0, 50))
//	8                   (isolated)
func buildGraph(t testing.TB, g *Graph, scope storageScope) {
	t.Helper()
	addNodes(t, g, scope, 1, 2, 3, 4, 5, 6, 7, 8)
	for _, e := range [][2]int{{1, 2}, {2, 3}, {3, 4}, {4, 5}} {
		addEdge(t, g, scope, e[0], e[1], "KNOWS", always())
	}
	addEdge(t, g, scope, 1, 6, "WORKS_WITH", always())
	addEdge(t, g, scope, 6, 4, "WORKS_WITH", always())
	addEdge(t, g, scope, 7, 1, "KNOWS", temporal.Interval{Start: 0, End: 50})
}

func TestNeighbors(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		g := Open(env.Engine, Options{Clock: fixedClock()})
		scope := storagetest.TenantScope(t)
		buildGraph(t, g, scope)
		cases := []struct {
			node  int
			dir   Direction
			valid int64
			types []string
			want  []int
		}{
			{1, Out, 10, nil, []int{2, 6}},
			{1, Out, 10, []string{"KNOWS"}, []int{2}},
			{1, Out, 10, []string{"KNOWS", "WORKS_WITH"}, []int{2, 6}},
			{1, Out, 10, []string{"NEVER_REGISTERED"}, nil},
			{1, In, 10, nil, []int{7}},
			{1, In, 60, nil, nil},
			{1, Both, 10, nil, []int{2, 6, 7}},
			{4, In, 10, nil, []int{3, 6}},
			{4, In, 10, []string{"WORKS_WITH"}, []int{6}},
			{8, Both, 10, nil, nil},
		}
		for _, c := range cases {
			ns, err := g.Neighbors(scope, node(c.node), c.dir, temporal.Current(storageTime(c.valid)), c.types...)
			if err != nil {
				t.Fatal(err)
			}
			var ids []uuid.UUID
			for _, n := range ns {
				ids = append(ids, n.Node)
			}
			if got := numbers(ids); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("neighbours %d of %d at %d types %v: %v, want %v", c.dir, c.node, c.valid, c.types, got, c.want)
			}
		}
		if _, err := g.Neighbors(scope, node(1), 9, temporal.Current(10)); !errors.Is(err, ErrBadDirection) {
			t.Errorf("bad direction: %v", err)
		}
	})
}

func TestKHop(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		g := Open(env.Engine, Options{Clock: fixedClock()})
		scope := storagetest.TenantScope(t)
		buildGraph(t, g, scope)
		cases := []struct {
			name      string
			start     int
			valid     int64
			tr        Traversal
			want      map[int]int // node -> depth
			truncated bool
		}{
			{"depth 0", 1, 10, Traversal{Direction: Out, MaxDepth: 0, MaxVisited: 10}, map[int]int{1: 0}, false},
			{"depth 1", 1, 10, Traversal{Direction: Out, MaxDepth: 1, MaxVisited: 10}, map[int]int{1: 0, 2: 1, 6: 1}, false},
			{"depth 2", 1, 10, Traversal{Direction: Out, MaxDepth: 2, MaxVisited: 10}, map[int]int{1: 0, 2: 1, 6: 1, 3: 2, 4: 2}, false},
			{"all", 1, 10, Traversal{Direction: Out, MaxDepth: 9, MaxVisited: 10}, map[int]int{1: 0, 2: 1, 6: 1, 3: 2, 4: 2, 5: 3}, false},
			{"knows only", 1, 10, Traversal{Direction: Out, Types: []string{"KNOWS"}, MaxDepth: 9, MaxVisited: 10}, map[int]int{1: 0, 2: 1, 3: 2, 4: 3, 5: 4}, false},
			{"visited cap", 1, 10, Traversal{Direction: Out, MaxDepth: 9, MaxVisited: 3}, map[int]int{1: 0, 2: 1, 6: 1}, true},
			{"both, with the old edge", 5, 10, Traversal{Direction: Both, MaxDepth: 9, MaxVisited: 10}, map[int]int{5: 0, 4: 1, 3: 2, 6: 2, 2: 3, 1: 3, 7: 4}, false},
			{"both, after the old edge ends", 5, 60, Traversal{Direction: Both, MaxDepth: 9, MaxVisited: 10}, map[int]int{5: 0, 4: 1, 3: 2, 6: 2, 2: 3, 1: 3}, false},
		}
		for _, c := range cases {
			visits, truncated, err := g.KHop(scope, node(c.start), temporal.Current(storageTime(c.valid)), c.tr)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got := map[int]int{}
			for i, v := range visits {
				got[numbers([]uuid.UUID{v.Node})[0]] = v.Depth
				if i > 0 && (v.Depth < visits[i-1].Depth || v.Via.Node != v.Node) {
					t.Errorf("%s: visit %d out of BFS order: %+v", c.name, i, v)
				}
			}
			if truncated != c.truncated || len(got) != len(c.want) {
				t.Errorf("%s: %v (truncated %t), want %v (truncated %t)", c.name, got, truncated, c.want, c.truncated)
				continue
			}
			for n, d := range c.want {
				if got[n] != d {
					t.Errorf("%s: node %d at depth %d, want %d", c.name, n, got[n], d)
				}
			}
		}
		for _, tr := range []Traversal{{Direction: Out, MaxDepth: -1, MaxVisited: 1}, {Direction: Out, MaxVisited: 0}} {
			if _, _, err := g.KHop(scope, node(1), temporal.Current(10), tr); !errors.Is(err, ErrBadLimit) {
				t.Errorf("limits %+v: %v", tr, err)
			}
		}
		if _, _, err := g.KHop(scope, node(99), temporal.Current(10), Traversal{Direction: Out, MaxVisited: 5}); !errors.Is(err, temporal.ErrNotFound) {
			t.Errorf("unknown start: %v", err)
		}
	})
}

func TestShortestPath(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		g := Open(env.Engine, Options{Clock: fixedClock()})
		scope := storagetest.TenantScope(t)
		buildGraph(t, g, scope)
		wide := Traversal{Direction: Out, MaxDepth: 10, MaxVisited: 100}
		cases := []struct {
			name     string
			from, to int
			tr       Traversal
			want     []int // nodes after from
			err      error
		}{
			{"via works_with", 1, 4, wide, []int{6, 4}, nil},
			{"knows only", 1, 4, Traversal{Direction: Out, Types: []string{"KNOWS"}, MaxDepth: 10, MaxVisited: 100}, []int{2, 3, 4}, nil},
			{"to itself", 3, 3, wide, nil, nil},
			{"to the end", 1, 5, wide, []int{6, 4, 5}, nil},
			{"against the edges", 5, 1, wide, nil, ErrNoPath},
			{"both directions", 5, 1, Traversal{Direction: Both, MaxDepth: 10, MaxVisited: 100}, []int{4, 6, 1}, nil},
			{"too deep", 1, 5, Traversal{Direction: Out, MaxDepth: 2, MaxVisited: 100}, nil, ErrNoPath},
			{"isolated", 1, 8, wide, nil, ErrNoPath},
			{"unknown target", 1, 99, wide, nil, temporal.ErrNotFound},
		}
		for _, c := range cases {
			path, err := g.ShortestPath(scope, node(c.from), node(c.to), temporal.Current(10), c.tr)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Errorf("%s: %v, want %v", c.name, err, c.err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			var got []int
			prev := node(c.from)
			for _, step := range path {
				if step.Node == prev {
					t.Errorf("%s: bad step %+v", c.name, step)
				}
				prev = step.Node
				got = append(got, numbers([]uuid.UUID{step.Node})[0])
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s: path %v, want %v", c.name, got, c.want)
			}
		}
	})
}
