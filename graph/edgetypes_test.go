package graph

import (
	"errors"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

func TestEdgeTypeRegistryPersists(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		g := Open(env.Engine, Options{Clock: fixedClock()})
		scopes := storagetest.TenantScopes(t, 2)
		addNodes(t, g, scopes[0], 1, 2)
		addEdge(t, g, scopes[0], 1, 2, "KNOWS", always())
		g = Open(env.Reopen(t), Options{Clock: fixedClock()})
		h, err := g.EdgeTypeRegistry().Hash(scopes[0], "KNOWS")
		if err != nil || h != storage.HashEdgeType("KNOWS") {
			t.Fatalf("hash of KNOWS after restart: %x, %v", h, err)
		}
		if name, err := g.EdgeTypeRegistry().Name(scopes[0], h); err != nil || name != "KNOWS" {
			t.Fatalf("name of %x: %q, %v", h, name, err)
		}
		// Registries are per tenant.
		if _, err := g.EdgeTypeRegistry().Hash(scopes[1], "KNOWS"); !errors.Is(err, ErrUnknownEdgeType) {
			t.Fatalf("KNOWS in another tenant: %v", err)
		}
	})
}

// TestEdgeTypeCollisionFailsLoud injects a hash under which every name
// collides: the second name is refused, its edge is not written, and the
// refusal survives a restart because the registry is persisted.
func TestEdgeTypeCollisionFailsLoud(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		colliding := func(string) storage.EdgeTypeHash { return 42 }
		g := Open(env.Engine, Options{Clock: fixedClock(), HashEdgeType: colliding})
		scope := storagetest.TenantScope(t)
		addNodes(t, g, scope, 1, 2)
		addEdge(t, g, scope, 1, 2, "KNOWS", always())
		addEdge(t, g, scope, 2, 1, "KNOWS", always()) // same name again: fine
		for round := range 2 {
			if round == 1 {
				g = Open(env.Reopen(t), Options{Clock: fixedClock(), HashEdgeType: colliding})
			}
			_, err := g.Store().AssertEdge(scope, temporal.EdgeFact{ID: node(99), From: node(1), To: node(2), Type: "LIKES", Valid: always()})
			if !errors.Is(err, ErrEdgeTypeCollision) {
				t.Fatalf("round %d: second name with the same hash: %v", round, err)
			}
			if _, err := g.Store().EdgeHistory(scope, node(99)); !errors.Is(err, temporal.ErrNotFound) {
				t.Fatalf("round %d: refused edge was written: %v", round, err)
			}
			if _, err := g.EdgeTypeRegistry().Hash(scope, "LIKES"); !errors.Is(err, ErrEdgeTypeCollision) {
				t.Fatalf("round %d: lookup of colliding name: %v", round, err)
			}
			if _, err := g.Neighbors(scope, node(1), Out, temporal.Current(5), "LIKES"); !errors.Is(err, ErrEdgeTypeCollision) {
				t.Fatalf("round %d: neighbours by colliding name: %v", round, err)
			}
			ns, err := g.Neighbors(scope, node(1), Out, temporal.Current(5), "KNOWS")
			if err != nil || len(ns) != 1 || ns[0].Type != "KNOWS" {
				t.Fatalf("round %d: neighbours by KNOWS: %+v, %v", round, ns, err)
			}
		}
	})
}
