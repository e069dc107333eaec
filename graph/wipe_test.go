package graph

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

// TestRebuildAfterWipe is the reported failure: with a Graph open, every
// row of a tenant is deleted, the same edge type is rebuilt through that
// Graph, and after a restart Neighbors and KHop failed with "unknown edge
// type", because the Graph's cache said the type was registered and its
// registration row was never written again. It must hold whether the
// tenant is wiped through storage.WipeTenant, which tells the Graph, or
// deleted behind its back, family by family.
func TestRebuildAfterWipe(t *testing.T) {
	wipes := map[string]func(e storage.Engine, scope storage.TenantScope) error{
		"WipeTenant": storage.WipeTenant,
		"DeleteRange per family": func(e storage.Engine, scope storage.TenantScope) error {
			for _, cf := range storage.Families() {
				if err := e.DeleteRange(storage.TenantAll(scope, cf)); err != nil {
					return err
				}
			}
			return nil
		},
	}
	for name, wipe := range wipes {
		t.Run(name, func(t *testing.T) {
			storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
				g := Open(env.Engine, Options{Clock: fixedClock()})
				scopes := storagetest.TenantScopes(t, 2)
				for _, scope := range scopes {
					buildGraph(t, g, scope)
				}
				now := temporal.Current(10)
				if _, err := g.Neighbors(scopes[0], node(1), Out, now, "KNOWS", "WORKS_WITH"); err != nil {
					t.Fatal(err)
				}
				if err := wipe(env.Engine, scopes[0]); err != nil {
					t.Fatal(err)
				}
				if ns, err := g.Neighbors(scopes[0], node(1), Both, now); err != nil || len(ns) != 0 {
					t.Fatalf("neighbours after the wipe: %v, %v", ns, err)
				}
				buildGraph(t, g, scopes[0])
				g = Open(env.Reopen(t), Options{Clock: fixedClock()})
				for _, scope := range scopes {
					ns, err := g.Neighbors(scope, node(1), Out, now)
					if err != nil {
						t.Fatalf("neighbours after rebuild and restart: %v", err)
					}
					if got := neighborNodes(ns); !slices.Equal(numbers(got), []int{2, 6}) {
						t.Fatalf("neighbours after rebuild and restart: %v", numbers(got))
					}
					visits, _, err := g.KHop(scope, node(1), now, Traversal{Direction: Out, Types: []string{"KNOWS"}, MaxDepth: 2, MaxVisited: 10})
					if err != nil || len(visits) != 3 {
						t.Fatalf("k-hop after rebuild and restart: %v, %v", visits, err)
					}
				}
			})
		})
	}
}

func neighborNodes(ns []Neighbor) []uuid.UUID {
	out := make([]uuid.UUID, len(ns))
	for i, n := range ns {
		out[i] = n.Node
	}
	return out
}

// TestWipeUnderLoad wipes and rebuilds one tenant again and again while
// another tenant is read and written: the other tenant never notices, and
// the wiped one is whole after each rebuild (run with -race).
func TestWipeUnderLoad(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		g := Open(env.Engine, Options{})
		scopes := storagetest.TenantScopes(t, 2)
		for _, scope := range scopes {
			buildGraph(t, g, scope)
		}
		now := temporal.Current(10)
		stop := make(chan struct{})
		done := make(chan error)
		go func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					done <- nil
					return
				default:
				}
				ns, err := g.Neighbors(scopes[1], node(1), Out, now, "KNOWS", "WORKS_WITH")
				if err == nil && len(ns) != 2 {
					err = fmt.Errorf("the other tenant sees %d neighbours", len(ns))
				}
				if err == nil {
					_, err = g.Store().AssertNode(scopes[1], temporal.NodeFact{ID: node(100 + i%10), Valid: always()})
				}
				if err != nil {
					done <- err
					return
				}
			}
		}()
		for range 10 {
			if err := storage.WipeTenant(env.Engine, scopes[0]); err != nil {
				t.Fatal(err)
			}
			buildGraph(t, g, scopes[0])
			ns, err := g.Neighbors(scopes[0], node(1), Out, now, "KNOWS", "WORKS_WITH")
			if err != nil || len(ns) != 2 {
				t.Fatalf("rebuilt tenant: %v, %v", ns, err)
			}
		}
		close(stop)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}
