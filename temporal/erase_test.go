package temporal

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// tenantRows returns every row of scope, family by family, as
// "family key=value" lines.
func tenantRows(t *testing.T, r storage.Reader, scope storage.TenantScope) []string {
	t.Helper()
	var out []string
	for _, cf := range storage.Families() {
		for kv, err := range r.Scan(storage.TenantAll(scope, cf)) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %x=%x", cf, kv.Key, kv.Value))
		}
	}
	return out
}

// naming returns the rows of rows whose key or value holds id's bytes
// (want is true), or the others.
func naming(rows []string, id uuid.UUID, want bool) []string {
	hex := fmt.Sprintf("%x", id[:])
	return slices.DeleteFunc(slices.Clone(rows), func(r string) bool { return bytes.Contains([]byte(r), []byte(hex)) != want })
}

// TestAddEdgeErasure: three tenants hold the same nodes and edge ids. In
// tenant 0, an edge with corrections, a tombstone and a sibling edge of the
// same endpoints and type is erased, then a self-loop: every row naming
// the erased edge goes (versions, both index rows, both adjacency rows),
// every other row of the tenant stays, and the other tenants are
// byte-identical.
func TestAddEdgeErasure(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := openStore(env, Options{})
		scopes := storagetest.TenantScopes(t, 3)
		erased, sibling, back, loop := uuid.New(), uuid.New(), uuid.New(), uuid.New()
		for _, scope := range scopes {
			for _, id := range []uuid.UUID{idA, idB, idC} {
				assertNode(t, s, scope, id, always(), nil)
			}
			assertEdge(t, s, scope, erased, idA, idB, "KNOWS", always())
			assertEdge(t, s, scope, erased, idA, idB, "KNOWS", Interval{10, 20}) // a correction: closed and new versions
			if _, err := s.DeleteEdge(scope, erased, 30); err != nil {
				t.Fatal(err)
			}
			assertEdge(t, s, scope, sibling, idA, idB, "KNOWS", always())
			assertEdge(t, s, scope, back, idC, idA, "KNOWS", always())
			assertEdge(t, s, scope, loop, idB, idB, "SELF", always())
		}
		others := [][]string{tenantRows(t, e, scopes[1]), tenantRows(t, e, scopes[2])}
		for _, c := range []struct {
			edge uuid.UUID
			ends []uuid.UUID
		}{{erased, []uuid.UUID{idA, idB}}, {loop, []uuid.UUID{idB}}} {
			before := tenantRows(t, e, scopes[0])
			gone := naming(before, c.edge, true)
			if len(gone) == 0 {
				t.Fatalf("edge %s has no row before the erasure", c.edge)
			}
			var b storage.Batch
			got, err := AddEdgeErasure(e, &b, scopes[0], c.edge)
			if err != nil {
				t.Fatal(err)
			}
			if got.Rows != len(gone) || !slices.Equal(got.Endpoints, c.ends) {
				t.Errorf("edge %s: %+v, want %d rows and endpoints %v", c.edge, got, len(gone), c.ends)
			}
			if err := e.WriteDurable(&b); err != nil {
				t.Fatal(err)
			}
			after := tenantRows(t, e, scopes[0])
			if left := naming(after, c.edge, true); len(left) > 0 {
				t.Errorf("edge %s: rows remain: %q", c.edge, left)
			}
			if want := naming(before, c.edge, false); !slices.Equal(after, want) {
				t.Errorf("edge %s: the erasure changed other rows:\n got %q\nwant %q", c.edge, after, want)
			}
			if _, err := s.EdgeHistory(scopes[0], c.edge); !errors.Is(err, ErrNotFound) {
				t.Errorf("edge %s: history after the erasure: %v", c.edge, err)
			}
		}
		for _, c := range []struct {
			node uuid.UUID
			dir  Direction
			want []uuid.UUID
		}{{idA, Out, []uuid.UUID{sibling}}, {idA, In, []uuid.UUID{back}}, {idB, In, []uuid.UUID{sibling}}, {idB, Out, nil}} {
			adj, err := s.Adjacent(scopes[0], c.node, c.dir, nil, Current(15))
			if err != nil {
				t.Fatal(err)
			}
			var edges []uuid.UUID
			for _, a := range adj {
				edges = append(edges, a.Edge)
			}
			if !slices.Equal(edges, c.want) {
				t.Errorf("%s edges of %s after the erasures: %v, want %v", c.dir, c.node, edges, c.want)
			}
		}
		for i, scope := range scopes[1:] {
			if !slices.Equal(tenantRows(t, e, scope), others[i]) {
				t.Errorf("tenant %d changed", i+1)
			}
		}
	})
}

// TestAddEdgeErasureFindsNothing: an unknown id, a node's id and an edge
// of another tenant add nothing; the zero scope is refused.
func TestAddEdgeErasureFindsNothing(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scopes := storagetest.TenantScopes(t, 2)
		linkAB(t, s, scopes[1], "KNOWS")
		assertNode(t, s, scopes[0], idA, always(), nil)
		for _, id := range []uuid.UUID{uuid.New(), idA, idC} {
			var b storage.Batch
			got, err := AddEdgeErasure(env.Engine, &b, scopes[0], id)
			if err != nil || got.Rows != 0 || b.Len() != 0 {
				t.Errorf("%s: %+v, %d mutations, %v; want nothing", id, got, b.Len(), err)
			}
		}
		var b storage.Batch
		var zero storage.TenantScope
		if _, err := AddEdgeErasure(env.Engine, &b, zero, idC); !errors.Is(err, storage.ErrNilScope) {
			t.Errorf("the zero scope: %v, want ErrNilScope", err)
		}
	})
}
