package temporal

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

func TestDeleteNodeCascades(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scope := storagetest.TenantScope(t)
		for _, id := range []uuid.UUID{idA, idB, idC} {
			assertNode(t, s, scope, id, always(), name(id.String()))
		}
		eAB, eCA, eBC, eAA := storagetest.ID(101), storagetest.ID(102), storagetest.ID(103), storagetest.ID(104)
		assertEdge(t, s, scope, eAB, idA, idB, "KNOWS", always())
		assertEdge(t, s, scope, eCA, idC, idA, "KNOWS", always())
		assertEdge(t, s, scope, eBC, idB, idC, "KNOWS", always())
		assertEdge(t, s, scope, eAA, idA, idA, "SELF", always())
		before := s.Clock().Last()
		tx, err := s.DeleteNode(scope, idA, 50)
		if err != nil {
			t.Fatal(err)
		}
		check := func(t *testing.T, s *Store) {
			t.Helper()
			for _, c := range []struct {
				what  string
				read  func(AsOf) error
				at    AsOf
				found bool
			}{
				{"node A before deletion time", func(a AsOf) error { _, err := s.NodeAsOf(scope, idA, a); return err }, AsOf{40, tx}, true},
				{"node A after", func(a AsOf) error { _, err := s.NodeAsOf(scope, idA, a); return err }, AsOf{60, tx}, false},
				{"node A after, as known before the delete", func(a AsOf) error { _, err := s.NodeAsOf(scope, idA, a); return err }, AsOf{60, before}, true},
				{"edge A->B before", func(a AsOf) error { _, err := s.EdgeAsOf(scope, eAB, a); return err }, AsOf{40, tx}, true},
				{"edge A->B after", func(a AsOf) error { _, err := s.EdgeAsOf(scope, eAB, a); return err }, AsOf{60, tx}, false},
				{"edge C->A after", func(a AsOf) error { _, err := s.EdgeAsOf(scope, eCA, a); return err }, AsOf{60, tx}, false},
				{"self edge after", func(a AsOf) error { _, err := s.EdgeAsOf(scope, eAA, a); return err }, AsOf{60, tx}, false},
				{"edge B->C untouched", func(a AsOf) error { _, err := s.EdgeAsOf(scope, eBC, a); return err }, AsOf{60, tx}, true},
			} {
				err := c.read(c.at)
				if c.found && err != nil || !c.found && !errors.Is(err, ErrNotFound) {
					t.Errorf("%s: %v", c.what, err)
				}
			}
			for _, c := range []struct {
				node uuid.UUID
				dir  Direction
				at   AsOf
				want int
			}{
				{idA, Out, AsOf{60, tx}, 0}, {idA, In, AsOf{60, tx}, 0},
				{idB, In, AsOf{60, tx}, 0}, {idC, Out, AsOf{60, tx}, 0},
				{idB, Out, AsOf{60, tx}, 1}, {idC, In, AsOf{60, tx}, 1},
				{idA, Out, AsOf{40, tx}, 2}, {idA, In, AsOf{40, tx}, 2},
				{idA, Out, AsOf{60, before}, 2},
			} {
				adj, err := s.Adjacent(scope, c.node, c.dir, nil, c.at)
				if err != nil || len(adj) != c.want {
					t.Errorf("adjacent %s of %s at %+v: %d rows (%v), want %d", c.dir, c.node, c.at, len(adj), err, c.want)
				}
			}
			hist, err := s.EdgeHistory(scope, eAB)
			if err != nil || !hist[0].Tombstone || hist[0].Valid != (Interval{50, Forever}) || hist[0].TxStart >= tx {
				t.Errorf("edge history head %+v, %v: want a tombstone from 50 before tx %d", hist[0], err, tx)
			}
		}
		check(t, s)
		// The cascade was written durably and in one batch: after a restart
		// it is all there.
		check(t, Open(env.Reopen(t), Options{Clock: NewClock(newWall(1000).now)}))
	})
}

func TestDeleteEdge(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scope := storagetest.TenantScope(t)
		assertNode(t, s, scope, idA, always(), nil)
		assertNode(t, s, scope, idB, always(), nil)
		e := storagetest.ID(101)
		assertEdge(t, s, scope, e, idA, idB, "KNOWS", always())
		tx, err := s.DeleteEdge(scope, e, 30)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.EdgeAsOf(scope, e, AsOf{31, tx}); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted edge read: %v", err)
		}
		if _, err := s.NodeAsOf(scope, idA, AsOf{31, tx}); err != nil {
			t.Errorf("endpoint survives an edge delete: %v", err)
		}
		adj, err := s.Adjacent(scope, idA, Out, []storage.EdgeTypeHash{storage.HashEdgeType("KNOWS")}, AsOf{29, tx})
		if err != nil || len(adj) != 1 || adj[0].Valid != (Interval{0, 30}) {
			t.Errorf("adjacency before the delete time: %+v, %v", adj, err)
		}
	})
}
