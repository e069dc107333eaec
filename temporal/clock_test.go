package temporal

import (
	"testing"

	"telha.dev/core/storage"
	"telha.dev/temporal/temporaltest"
)

func TestClockStrictlyIncreasing(t *testing.T) {
	w := newWall(100)
	c := NewClock(w.now)
	var last storage.Timestamp = storage.MinTimestamp
	for _, wallAt := range []int64{100, 100, 50, 300, 299, 1000} {
		w.t.Store(wallAt)
		tx := c.Next()
		if tx <= last {
			t.Fatalf("wall %d: tx %d after %d", wallAt, tx, last)
		}
		last = tx
	}
	c.Observe(5000)
	if tx := c.Next(); tx != 5001 {
		t.Fatalf("after Observe(5000): %d", tx)
	}
}

// TestClockSurvivesRestart: the wall clock steps back while the store is
// down; the tenant's next transaction time still lies above its last one,
// because the store reads the head of the tenant's tx_time_index first.
func TestClockSurvivesRestart(t *testing.T) {
	temporaltest.Run(t, func(t *testing.T, env *temporaltest.Env) {
		scopes := temporaltest.Scopes(t, 2)
		s := Open(env.Engine, Options{Clock: NewClock(newWall(1_000_000).now)})
		tx1 := assertNode(t, s, scopes[0], idA, always(), name("before"))
		tx2 := assertNode(t, s, scopes[1], idA, always(), name("before"))
		s = Open(env.Reopen(), Options{Clock: NewClock(newWall(10).now)})
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
