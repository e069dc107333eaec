package graph

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

// TestTenantIsolation: three tenants hold the same node ids with different
// topologies and type names; neighbours, traversals and paths of each see
// only its own edges.
func TestTenantIsolation(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		g := Open(env.Engine, Options{Clock: fixedClock()})
		scopes := storagetest.TenantScopes(t, 3)
		topologies := []struct {
			typ   string
			edges [][2]int
		}{
			{"KNOWS", [][2]int{{1, 2}, {2, 3}}},
			{"KNOWS", [][2]int{{1, 3}}},
			{"OTHER", [][2]int{{1, 2}, {1, 3}, {1, 4}}},
		}
		for i, topo := range topologies {
			addNodes(t, g, scopes[i], 1, 2, 3, 4)
			for _, e := range topo.edges {
				addEdge(t, g, scopes[i], e[0], e[1], topo.typ, always())
			}
		}
		at := temporal.Current(10)
		wantOut := [][]int{{2}, {3}, {2, 3, 4}}
		wantReach := [][]int{{1, 2, 3}, {1, 3}, {1, 2, 3, 4}}
		wantPathLen := []int{2, 1, 1}
		for i, scope := range scopes {
			ns, err := g.Neighbors(scope, node(1), Out, at)
			if err != nil {
				t.Fatal(err)
			}
			var ids []uuid.UUID
			for _, n := range ns {
				ids = append(ids, n.Node)
				if n.Type != topologies[i].typ {
					t.Errorf("tenant %d: edge type %q", i, n.Type)
				}
			}
			if got := numbers(ids); !slices.Equal(got, wantOut[i]) {
				t.Errorf("tenant %d: neighbours %v, want %v", i, got, wantOut[i])
			}
			knows, err := g.Neighbors(scope, node(1), Out, at, "KNOWS")
			if err != nil || (i == 2) != (len(knows) == 0) {
				t.Errorf("tenant %d: KNOWS neighbours %v, %v", i, knows, err)
			}
			visits, _, err := g.KHop(scope, node(1), at, Traversal{Direction: Both, MaxDepth: 5, MaxVisited: 10})
			if err != nil {
				t.Fatal(err)
			}
			ids = ids[:0]
			for _, v := range visits {
				ids = append(ids, v.Node)
			}
			if got := numbers(ids); !slices.Equal(got, wantReach[i]) {
				t.Errorf("tenant %d: reach %v, want %v", i, got, wantReach[i])
			}
			path, err := g.ShortestPath(scope, node(1), node(3), at, Traversal{Direction: Out, MaxDepth: 5, MaxVisited: 10})
			if err != nil || len(path) != wantPathLen[i] {
				t.Errorf("tenant %d: path %+v, %v; want length %d", i, path, err, wantPathLen[i])
			}
		}
	})
}
