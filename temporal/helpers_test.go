package temporal

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// wall is a settable wall clock for deterministic transaction times.
type wall struct{ t atomic.Int64 }

func newWall(t int64) *wall {
	w := &wall{}
	w.t.Store(t)
	return w
}

func (w *wall) now() storage.Timestamp { return storage.Timestamp(w.t.Load()) }

// openStore opens a store on env's engine whose wall clock stands at 1000:
// transaction times are 1000, 1001, ...
func openStore(env *storagetest.Env, opts Options) *Store {
	if opts.Clock == nil {
		opts.Clock = NewClock(newWall(1000).now)
	}
	return Open(env.Engine, opts)
}

var (
	idA, idB, idC, idD = storagetest.ID(1), storagetest.ID(2), storagetest.ID(3), storagetest.ID(4)
)

func assertNode(t testing.TB, s *Store, scope storage.TenantScope, id uuid.UUID, iv Interval, props Properties, labels ...string) storage.Timestamp {
	t.Helper()
	tx, err := s.AssertNode(scope, NodeFact{ID: id, Valid: iv, Labels: labels, Props: props})
	if err != nil {
		t.Fatalf("assert node %s: %v", id, err)
	}
	return tx
}

func assertEdge(t testing.TB, s *Store, scope storage.TenantScope, id, from, to uuid.UUID, typ string, iv Interval) storage.Timestamp {
	t.Helper()
	tx, err := s.AssertEdge(scope, EdgeFact{ID: id, From: from, To: to, Type: typ, Valid: iv})
	if err != nil {
		t.Fatalf("assert edge %s: %v", id, err)
	}
	return tx
}

// linkAB asserts nodes A and B and the edge C from A to B of type typ,
// all valid always.
func linkAB(t testing.TB, s *Store, scope storage.TenantScope, typ string) {
	t.Helper()
	assertNode(t, s, scope, idA, always(), nil)
	assertNode(t, s, scope, idB, always(), nil)
	assertEdge(t, s, scope, idC, idA, idB, typ, always())
}

// nameAt reads the "name" property of node id as of a, or "" for
// ErrNotFound.
func nameAt(t testing.TB, s *Store, scope storage.TenantScope, id uuid.UUID, a AsOf) string {
	t.Helper()
	v, err := s.NodeAsOf(scope, id, a)
	if errors.Is(err, ErrNotFound) {
		return ""
	}
	if err != nil {
		t.Fatalf("node %s as of %v: %v", id, a, err)
	}
	return v.Props["name"].Str
}

func name(s string) Properties { return Properties{"name": String(s)} }

func always() Interval { return Interval{0, Forever} }

// zeroScope is the zero TenantScope, which is not a scope.
var zeroScope storage.TenantScope
