package temporal

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage/storagetest"
)

// TestTenantIsolation: three tenants hold the same logical ids with
// different data; no read, scan or adjacency query of one returns another's
// rows, and a delete in one leaves the others untouched.
func TestTenantIsolation(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scopes := storagetest.TenantScopes(t, 3)
		edge := storagetest.ID(100)
		targets := []uuid.UUID{idB, idC, idB}
		for i, scope := range scopes {
			tag := Properties{"tenant": Int(int64(i))}
			for _, id := range []uuid.UUID{idA, idB, idC} {
				assertNode(t, s, scope, id, always(), tag)
			}
			for range i { // tenant i corrects node A i times
				assertNode(t, s, scope, idA, Interval{10, 20}, tag)
			}
			if _, err := s.AssertEdge(scope, EdgeFact{ID: edge, From: idA, To: targets[i], Type: "T", Valid: always(), Props: tag}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.DeleteNode(scopes[2], idA, 0); err != nil {
			t.Fatal(err)
		}
		last := s.Clock().Last()
		for i, scope := range scopes {
			own := func(what string, v Version) {
				t.Helper()
				if got := v.Props["tenant"]; !v.Tombstone && !got.Equal(Int(int64(i))) {
					t.Errorf("tenant %d: %s returned tenant %#v's version", i, what, got)
				}
			}
			for _, id := range []uuid.UUID{idB, idC} {
				v, err := s.NodeAsOf(scope, id, Current(15))
				if err != nil {
					t.Fatalf("tenant %d: %v", i, err)
				}
				own("NodeAsOf", v)
			}
			v, err := s.NodeAsOf(scope, idA, Current(15))
			if i == 2 {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("tenant 2: deleted node A reads %v", err)
				}
			} else {
				if err != nil {
					t.Fatalf("tenant %d: node A: %v", i, err)
				}
				own("NodeAsOf", v)
			}
			hist, err := s.NodeHistory(scope, idA)
			if err != nil {
				t.Fatal(err)
			}
			wantHist := []int{1, 4, 6}[i] // the first correction adds 3 rows, the second 1, the delete 1
			if len(hist) != wantHist {
				t.Errorf("tenant %d: node A has %d versions, want %d", i, len(hist), wantHist)
			}
			for _, v := range hist {
				own("NodeHistory", v)
			}
			for _, scan := range []func(Cursor, int) (Page, error){
				func(c Cursor, n int) (Page, error) { return s.ValidAt(scope, Current(15), c, n) },
				func(c Cursor, n int) (Page, error) { return s.ChangedBetween(scope, 0, last, c, n) },
			} {
				var cursor Cursor
				for {
					p, err := scan(cursor, 2)
					if err != nil {
						t.Fatal(err)
					}
					for _, v := range p.Versions {
						own("scan", v)
					}
					if p.Done {
						break
					}
					cursor = p.Next
				}
			}
			adj, err := s.Adjacent(scope, idA, Out, nil, Current(15))
			if err != nil {
				t.Fatal(err)
			}
			wantAdj := []int{1, 1, 0}[i]
			if len(adj) != wantAdj || wantAdj == 1 && adj[0].Neighbor != targets[i] {
				t.Errorf("tenant %d: adjacency of A: %+v", i, adj)
			}
			e, err := s.EdgeAsOf(scope, edge, Current(15))
			if i < 2 {
				if err != nil || e.To != targets[i] {
					t.Errorf("tenant %d: edge %+v, %v", i, e, err)
				}
				own("EdgeAsOf", e)
			} else if !errors.Is(err, ErrNotFound) {
				t.Errorf("tenant 2: edge of deleted node reads %v", err)
			}
		}
	})
}
