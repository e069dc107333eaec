package temporal

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// storeCalls is every public call of a Store on one scope, each reduced to
// its error, for the tables of hostile cases.
func storeCalls(s *Store, scope storage.TenantScope) map[string]func() error {
	iv := Interval{0, Forever}
	return map[string]func() error{
		"AssertNode": func() error { _, err := s.AssertNode(scope, NodeFact{ID: idA, Valid: iv}); return err },
		"AssertEdge": func() error {
			_, err := s.AssertEdge(scope, EdgeFact{ID: idC, From: idA, To: idB, Type: "T", Valid: iv})
			return err
		},
		"DeleteNode":     func() error { _, err := s.DeleteNode(scope, idA, 5); return err },
		"DeleteEdge":     func() error { _, err := s.DeleteEdge(scope, idC, 5); return err },
		"NodeAsOf":       func() error { _, err := s.NodeAsOf(scope, idA, Current(5)); return err },
		"EdgeAsOf":       func() error { _, err := s.EdgeAsOf(scope, idC, Current(5)); return err },
		"CurrentNode":    func() error { _, err := s.CurrentNode(scope, idA); return err },
		"NodeHistory":    func() error { _, err := s.NodeHistory(scope, idA); return err },
		"EdgeHistory":    func() error { _, err := s.EdgeHistory(scope, idC); return err },
		"ValidAt":        func() error { _, err := s.ValidAt(scope, Current(5), Cursor{}, 10); return err },
		"ChangedBetween": func() error { _, err := s.ChangedBetween(scope, 0, Forever, Cursor{}, 10); return err },
		"Adjacent":       func() error { _, err := s.Adjacent(scope, idA, Out, nil, Current(5)); return err },
	}
}

// TestNoEngine: a Store opened on a nil engine, and the zero Store, fail
// every call with storage.ErrNotOpen instead of panicking; so does a registry
// without an engine.
func TestNoEngine(t *testing.T) {
	scope := storagetest.TenantScope(t)
	var zero Store
	for name, s := range map[string]*Store{"Open(nil)": Open(nil, Options{}), "zero Store": &zero} {
		for call, do := range storeCalls(s, scope) {
			if err := do(); !errors.Is(err, storage.ErrNotOpen) {
				t.Errorf("%s: %s: %v, want storage.ErrNotOpen", name, call, err)
			}
		}
	}
	var zeroRegistry EdgeTypeRegistry
	for name, r := range map[string]*EdgeTypeRegistry{"NewEdgeTypeRegistry(nil)": NewEdgeTypeRegistry(nil, nil), "zero registry": &zeroRegistry} {
		var b storage.Batch
		if _, err := r.Resolve(&b, scope, "T", 1); !errors.Is(err, storage.ErrNotOpen) {
			t.Errorf("%s: Resolve: %v", name, err)
		}
		if _, err := r.Hash(scope, "T"); !errors.Is(err, storage.ErrNotOpen) {
			t.Errorf("%s: Hash: %v", name, err)
		}
		if _, err := r.Name(scope, 1); !errors.Is(err, storage.ErrNotOpen) {
			t.Errorf("%s: Name: %v", name, err)
		}
	}
}

// TestClosedEngine: after the engine closes, every call fails with
// storage.ErrClosed, including calls racing with the Close.
func TestClosedEngine(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scope := storagetest.TenantScope(t)
		linkAB(t, s, scope, "T")
		calls := storeCalls(s, scope)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 20 {
				for _, do := range calls {
					_ = do() // racing with Close: any result but a panic
				}
			}
		}()
		if err := env.Engine.Close(); err != nil {
			t.Fatal(err)
		}
		<-done
		for call, do := range calls {
			if err := do(); !errors.Is(err, storage.ErrClosed) {
				t.Errorf("%s on a closed engine: %v, want ErrClosed", call, err)
			}
		}
	})
}

// TestExtremeTimes writes and reads at the ends of the time range.
func TestExtremeTimes(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scope := storagetest.TenantScope(t)
		assertNode(t, s, scope, idA, Interval{storage.MinTimestamp, Forever}, name("first"))
		assertNode(t, s, scope, idA, Interval{Forever - 1, Forever}, name("last"))
		for _, c := range []struct {
			at   AsOf
			want string
		}{
			{Current(storage.MinTimestamp), "first"},
			{Current(Forever - 2), "first"},
			{Current(Forever - 1), "last"},
			{Current(Forever), ""},
			{AsOf{Valid: 0, Tx: storage.MinTimestamp}, ""},
		} {
			if got := nameAt(t, s, scope, idA, c.at); got != c.want {
				t.Errorf("as of %+v: %q, want %q", c.at, got, c.want)
			}
		}
		for _, at := range []AsOf{Current(storage.MinTimestamp), Current(Forever), {Valid: storage.MinTimestamp, Tx: storage.MinTimestamp}} {
			if _, err := s.ValidAt(scope, at, Cursor{}, 1); err != nil {
				t.Errorf("valid at %+v: %v", at, err)
			}
		}
		p, err := s.ChangedBetween(scope, storage.MinTimestamp, storage.MaxTimestamp, Cursor{}, 100)
		if err != nil || len(p.Versions) != 3 {
			t.Errorf("changed over all time: %d versions, %v; want 3", len(p.Versions), err)
		}
		if _, err := s.DeleteNode(scope, idA, storage.MinTimestamp); err != nil {
			t.Errorf("delete from the start of time: %v", err)
		}
		if got := nameAt(t, s, scope, idA, Current(storage.MinTimestamp)); got != "" {
			t.Errorf("after the delete: %q", got)
		}
	})
}

// TestHostileFacts: nil ids, huge and odd values are refused or stored
// faithfully, never a panic.
func TestHostileFacts(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env, Options{})
		scope := storagetest.TenantScope(t)
		big := make([]byte, 1<<20)
		props := Properties{"nan": Float(math.NaN()), "bytes": Bytes(big), "\xff": String("\x00")}
		assertNode(t, s, scope, idA, always(), props, "\xfe", "label")
		v, err := s.CurrentNode(scope, idA)
		if err != nil || !v.Props.Equal(props) {
			t.Fatalf("hostile node read back as %v, %v", v.Props, err)
		}
		assertNode(t, s, scope, idB, always(), nil)
		// A self-loop and an edge whose id is a node's id.
		assertEdge(t, s, scope, idA, idA, idA, "SELF", always())
		adj, err := s.Adjacent(scope, idA, In, nil, Current(5))
		if err != nil || len(adj) != 1 || adj[0].Neighbor != idA {
			t.Fatalf("self-loop: %+v, %v", adj, err)
		}
		for _, f := range []EdgeFact{
			{ID: uuid.Nil, From: idA, To: idB, Type: "T", Valid: always()},
			{ID: idD, From: uuid.Nil, To: idB, Type: "T", Valid: always()},
			{ID: idD, From: idA, To: idB, Type: "T", Valid: Interval{Forever, Forever}},
		} {
			if _, err := s.AssertEdge(scope, f); !errors.Is(err, ErrInvalidFact) && !errors.Is(err, ErrInvalidInterval) {
				t.Errorf("edge %+v: %v", f, err)
			}
		}
		if _, err := s.Adjacent(scope, idA, Direction(9), nil, Current(5)); !errors.Is(err, ErrInvalidFact) {
			t.Errorf("direction 9: %v", err)
		}
		if _, err := s.NodeAsOf(scope, uuid.Nil, Current(5)); !errors.Is(err, ErrNotFound) {
			t.Errorf("nil id: %v", err)
		}
		if _, err := s.ValidAt(scope, Current(5), Cursor{}, -1); !errors.Is(err, ErrBadLimit) {
			t.Errorf("negative limit: %v", err)
		}
		if p, err := s.ValidAt(scope, Current(5), Cursor{}, int(^uint(0)>>1)); err != nil || !p.Done {
			t.Errorf("limit MaxInt: %v", err)
		}
		_ = fmt.Sprint(v) // printing a hostile version must not panic
	})
}
