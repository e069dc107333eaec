package temporal

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

func TestAssertCorrectAsOf(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scope := storagetest.TenantScope(t)
		tx1 := assertNode(t, s, scope, idA, Interval{10, Forever}, name("v1"), "Person")
		tx2 := assertNode(t, s, scope, idA, Interval{20, 30}, name("v2"), "Person")
		cases := []struct {
			valid, tx storage.Timestamp
			want      string
		}{
			{15, tx1, "v1"},
			{25, tx1, "v1"},
			{25, tx2, "v2"},
			{29, tx2, "v2"},
			{30, tx2, "v1"},
			{15, tx2, "v1"},
			{5, tx2, ""},
			{15, tx1 - 1, ""},
			{25, Forever, "v2"},
		}
		for _, c := range cases {
			if got := nameAt(t, s, scope, idA, AsOf{c.valid, c.tx}); got != c.want {
				t.Errorf("as of valid %d tx %d: got %q, want %q", c.valid, c.tx, got, c.want)
			}
		}
		hist, err := s.NodeHistory(scope, idA)
		if err != nil {
			t.Fatal(err)
		}
		type row struct {
			valid Interval
			tx    [2]storage.Timestamp
			name  string
		}
		want := []row{
			{Interval{30, Forever}, [2]storage.Timestamp{tx2, Forever}, "v1"},
			{Interval{20, 30}, [2]storage.Timestamp{tx2, Forever}, "v2"},
			{Interval{10, 20}, [2]storage.Timestamp{tx2, Forever}, "v1"},
			{Interval{10, Forever}, [2]storage.Timestamp{tx1, tx2}, "v1"},
		}
		if len(hist) != len(want) {
			t.Fatalf("history has %d versions, want %d: %+v", len(hist), len(want), hist)
		}
		for i, w := range want {
			h := hist[i]
			got := row{h.Valid, [2]storage.Timestamp{h.TxStart, h.TxEnd}, h.Props["name"].Str}
			if got != w || h.Labels[0] != "Person" {
				t.Errorf("history[%d] = %+v, want %+v", i, got, w)
			}
		}
	})
}

func TestCurrentNode(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWall(1000)
		s := Open(env.Engine, Options{Clock: NewClock(w.now)})
		scope := storagetest.TenantScope(t)
		assertNode(t, s, scope, idA, Interval{0, 2000}, name("old"))
		assertNode(t, s, scope, idA, Interval{2000, Forever}, name("new"))
		for _, c := range []struct {
			wall int64
			want string
		}{{1500, "old"}, {2500, "new"}} {
			w.t.Store(c.wall)
			v, err := s.CurrentNode(scope, idA)
			if err != nil || v.Props["name"].Str != c.want {
				t.Errorf("current at wall %d = %v, %v; want %s", c.wall, v.Props, err, c.want)
			}
		}
	})
}

func TestBadInputErrors(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scopes := storagetest.TenantScopes(t, 2)
		scope := scopes[0]
		linkAB(t, s, scope, "KNOWS")
		page, err := s.ValidAt(scopes[1], Current(5), Cursor{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		assertNode(t, s, scopes[1], idA, always(), nil)
		assertNode(t, s, scopes[1], idB, always(), nil)
		if page, err = s.ValidAt(scopes[1], Current(5), Cursor{}, 1); err != nil || page.Done {
			t.Fatalf("page of tenant 2: %+v, %v", page, err)
		}
		cases := []struct {
			name string
			err  func() error
			want error
		}{
			{"empty interval", func() error { _, err := s.AssertNode(scope, NodeFact{ID: idA, Valid: Interval{5, 5}}); return err }, ErrInvalidInterval},
			{"reversed interval", func() error { _, err := s.AssertNode(scope, NodeFact{ID: idA, Valid: Interval{6, 5}}); return err }, ErrInvalidInterval},
			{"nil node id", func() error { _, err := s.AssertNode(scope, NodeFact{Valid: always()}); return err }, ErrInvalidFact},
			{"empty label", func() error {
				_, err := s.AssertNode(scope, NodeFact{ID: idA, Valid: always(), Labels: []string{""}})
				return err
			}, ErrInvalidFact},
			{"empty property name", func() error {
				_, err := s.AssertNode(scope, NodeFact{ID: idA, Valid: always(), Props: Properties{"": Int(1)}})
				return err
			}, ErrInvalidFact},
			{"zero value kind", func() error {
				_, err := s.AssertNode(scope, NodeFact{ID: idA, Valid: always(), Props: Properties{"x": {}}})
				return err
			}, ErrInvalidFact},
			{"zero scope", func() error { _, err := s.AssertNode(zeroScope, NodeFact{ID: idA, Valid: always()}); return err }, storage.ErrNilScope},
			{"edge to unknown node", func() error {
				_, err := s.AssertEdge(scope, EdgeFact{ID: idD, From: idA, To: idD, Type: "KNOWS", Valid: always()})
				return err
			}, ErrUnknownNode},
			{"edge without type", func() error {
				_, err := s.AssertEdge(scope, EdgeFact{ID: idD, From: idA, To: idB, Valid: always()})
				return err
			}, ErrInvalidFact},
			{"edge endpoints changed", func() error {
				_, err := s.AssertEdge(scope, EdgeFact{ID: idC, From: idB, To: idA, Type: "KNOWS", Valid: always()})
				return err
			}, ErrEndpointsChanged},
			{"edge type changed", func() error {
				_, err := s.AssertEdge(scope, EdgeFact{ID: idC, From: idA, To: idB, Type: "LIKES", Valid: always()})
				return err
			}, ErrEndpointsChanged},
			{"delete unknown node", func() error { _, err := s.DeleteNode(scope, idD, 0); return err }, ErrUnknownNode},
			{"delete unknown edge", func() error { _, err := s.DeleteEdge(scope, idD, 0); return err }, ErrUnknownEdge},
			{"delete at forever", func() error { _, err := s.DeleteNode(scope, idA, Forever); return err }, ErrInvalidInterval},
			{"read unknown node", func() error { _, err := s.NodeAsOf(scope, idD, Current(5)); return err }, ErrNotFound},
			{"history of unknown node", func() error { _, err := s.NodeHistory(scope, idD); return err }, ErrNotFound},
			{"page limit", func() error { _, err := s.ValidAt(scope, Current(5), Cursor{}, 0); return err }, ErrBadLimit},
			{"cursor of another tenant", func() error { _, err := s.ValidAt(scope, Current(5), page.Next, 10); return err }, ErrBadCursor},
			{"adjacent bad direction", func() error { _, err := s.Adjacent(scope, idA, 0, nil, Current(5)); return err }, ErrInvalidFact},
		}
		for _, c := range cases {
			if err := c.err(); !errors.Is(err, c.want) {
				t.Errorf("%s: got %v, want %v", c.name, err, c.want)
			}
		}
	})
}

func TestEdgesAndAdjacency(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scope := storagetest.TenantScope(t)
		for _, id := range []uuid.UUID{idA, idB, idC} {
			assertNode(t, s, scope, id, always(), nil)
		}
		e1, e2 := storagetest.ID(101), storagetest.ID(102)
		tx1 := assertEdge(t, s, scope, e1, idA, idB, "KNOWS", Interval{10, Forever})
		assertEdge(t, s, scope, e2, idA, idC, "WORKS_WITH", Interval{10, Forever})
		tx3 := assertEdge(t, s, scope, e1, idA, idB, "KNOWS", Interval{50, 60}) // correction: gap later filled by remainders
		knows := storage.HashEdgeType("KNOWS")
		cases := []struct {
			node  uuid.UUID
			dir   Direction
			types []storage.EdgeTypeHash
			at    AsOf
			want  []uuid.UUID // neighbours
		}{
			{idA, Out, nil, AsOf{20, Forever}, []uuid.UUID{idB, idC}},
			{idA, Out, []storage.EdgeTypeHash{knows}, AsOf{20, Forever}, []uuid.UUID{idB}},
			{idA, Out, nil, AsOf{5, Forever}, nil},
			{idB, In, nil, AsOf{55, Forever}, []uuid.UUID{idA}},
			{idB, In, nil, AsOf{55, tx1}, []uuid.UUID{idA}},
			{idB, Out, nil, AsOf{55, tx3}, nil},
			{idC, In, []storage.EdgeTypeHash{knows}, AsOf{20, Forever}, nil},
		}
		for _, c := range cases {
			adj, err := s.Adjacent(scope, c.node, c.dir, c.types, c.at)
			if err != nil {
				t.Fatal(err)
			}
			got := map[uuid.UUID]bool{}
			for _, a := range adj {
				got[a.Neighbor] = true
			}
			if len(adj) != len(c.want) {
				t.Errorf("%s %s at %+v: %d rows %+v, want %v", c.node, c.dir, c.at, len(adj), adj, c.want)
				continue
			}
			for _, w := range c.want {
				if !got[w] {
					t.Errorf("%s %s at %+v: missing %s", c.node, c.dir, c.at, w)
				}
			}
		}
		// The correction closed the edge's first version and re-asserted its
		// remainders: four versions, three still known.
		hist, err := s.EdgeHistory(scope, e1)
		if err != nil || len(hist) != 4 {
			t.Fatalf("edge history: %d versions, %v", len(hist), err)
		}
		adj, err := s.Adjacent(scope, idA, Out, []storage.EdgeTypeHash{knows}, AsOf{55, tx3})
		if err != nil || len(adj) != 1 || adj[0].Edge != e1 || adj[0].Valid != (Interval{50, 60}) || adj[0].TxStart != tx3 {
			t.Fatalf("adjacency after correction: %+v, %v", adj, err)
		}
	})
}
