package temporal

import (
	"errors"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

func TestClockStrictlyIncreasing(t *testing.T) {
	w := newWall(100)
	c := NewClock(w.now)
	var last storage.Timestamp = storage.MinTimestamp
	for _, wallAt := range []int64{100, 100, 50, 300, 299, 1000} {
		w.t.Store(wallAt)
		tx, err := c.Next()
		if err != nil || tx <= last {
			t.Fatalf("wall %d: tx %d after %d, %v", wallAt, tx, last, err)
		}
		last = tx
	}
	c.Observe(5000)
	if tx, err := c.Next(); err != nil || tx != 5001 {
		t.Fatalf("after Observe(5000): %d, %v", tx, err)
	}
}

// TestClockSurvivesRestart: the wall clock steps back while the store is
// down; the tenant's next transaction time still lies above its last one,
// because the store reads the head of the tenant's tx_time_index first.
func TestClockSurvivesRestart(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		scopes := storagetest.TenantScopes(t, 2)
		s := Open(env.Engine, Options{Clock: NewClock(newWall(1_000_000).now)})
		tx1 := assertNode(t, s, scopes[0], idA, always(), name("before"))
		tx2 := assertNode(t, s, scopes[1], idA, always(), name("before"))
		s = Open(env.Reopen(t), Options{Clock: NewClock(newWall(10).now)})
		for i, prev := range []storage.Timestamp{tx1, tx2} {
			tx := assertNode(t, s, scopes[i], idA, always(), name("after"))
			if tx <= prev {
				t.Fatalf("tenant %d: tx %d after restart is not above %d", i, tx, prev)
			}
			if got := nameAt(t, s, scopes[i], idA, Current(5)); got != "after" {
				t.Fatalf("tenant %d: current name %q after restart", i, got)
			}
		}
	})
}

// TestClockExhaustion: a wall clock at the end of time, or a stored time
// there, exhausts the clock with a typed error; it never hands out Forever
// or wraps around to the start of time.
func TestClockExhaustion(t *testing.T) {
	w := newWall(int64(Forever) - 2)
	c := NewClock(w.now)
	for _, want := range []storage.Timestamp{Forever - 2, Forever - 1} {
		if tx, err := c.Next(); err != nil || tx != want {
			t.Fatalf("Next = %d, %v; want %d", tx, err, want)
		}
	}
	for range 2 {
		if tx, err := c.Next(); !errors.Is(err, ErrClockExhausted) {
			t.Fatalf("Next after Forever-1 = %d, %v; want ErrClockExhausted", tx, err)
		}
	}
	if c.Last() != Forever-1 {
		t.Fatalf("Last = %d after exhaustion", c.Last())
	}

	atEnd := NewClock(func() storage.Timestamp { return storage.MaxTimestamp })
	if tx, err := atEnd.Next(); !errors.Is(err, ErrClockExhausted) {
		t.Fatalf("wall clock at MaxTimestamp: Next = %d, %v", tx, err)
	}
	observed := NewClock(newWall(100).now)
	observed.Observe(Forever)
	if tx, err := observed.Next(); !errors.Is(err, ErrClockExhausted) {
		t.Fatalf("after Observe(Forever): Next = %d, %v", tx, err)
	}
	var zero Clock
	if tx, err := zero.Next(); err != nil || tx <= 0 {
		t.Fatalf("zero Clock: Next = %d, %v", tx, err)
	}
}

// TestExhaustedClockWritesNothing: once the clock is exhausted every write
// fails with ErrClockExhausted and as-of reads still return what was
// written before.
func TestExhaustedClockWritesNothing(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWall(1000)
		s := Open(env.Engine, Options{Clock: NewClock(w.now)})
		scope := storagetest.TenantScope(t)
		tx := assertNode(t, s, scope, idA, always(), name("before"))
		assertNode(t, s, scope, idB, always(), nil)
		assertEdge(t, s, scope, idC, idA, idB, "KNOWS", always())
		w.t.Store(int64(storage.MaxTimestamp))
		writes := map[string]func() error{
			"assert node": func() error {
				_, err := s.AssertNode(scope, NodeFact{ID: idA, Valid: always(), Props: name("after")})
				return err
			},
			"assert edge": func() error {
				_, err := s.AssertEdge(scope, EdgeFact{ID: idD, From: idA, To: idB, Type: "KNOWS", Valid: always()})
				return err
			},
			"delete node": func() error { _, err := s.DeleteNode(scope, idA, 5); return err },
			"delete edge": func() error { _, err := s.DeleteEdge(scope, idC, 5); return err },
		}
		for what, write := range writes {
			if err := write(); !errors.Is(err, ErrClockExhausted) {
				t.Errorf("%s with an exhausted clock: %v", what, err)
			}
		}
		for _, a := range []AsOf{Current(5), {Valid: 5, Tx: tx}} {
			if got := nameAt(t, s, scope, idA, a); got != "before" {
				t.Errorf("as of %v: name %q, want before", a, got)
			}
		}
		if _, err := s.EdgeAsOf(scope, idC, Current(5)); err != nil {
			t.Errorf("edge after failed deletes: %v", err)
		}
	})
}
