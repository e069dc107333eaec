package jobs_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

// TestBadClock: job times are Unix microseconds. A clock reading they
// cannot hold, or a run of enqueues that leaves no later creation time,
// fails with ErrBadClock instead of wrapping around to the other end of
// time (which put later jobs first and expired leases at once).
func TestBadClock(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		for _, reading := range []time.Time{
			time.Unix(math.MaxInt64/1_000_000+1, 0),
			time.Unix(math.MinInt64/1_000_000-1, 0),
			storage.MaxTimestamp.Time(), // leaves no room for the lease
		} {
			c := &clock{now: reading}
			s := newStore(t, e, c)
			q := tenantQueue(t, s, 1)
			if _, err := q.Enqueue(nil, jobs.EnqueueOptions{}); !errors.Is(err, jobs.ErrBadClock) {
				t.Errorf("enqueue at %s: %v", reading, err)
			}
			if _, err := q.Claim("w"); !errors.Is(err, jobs.ErrBadClock) {
				t.Errorf("claim at %s: %v", reading, err)
			}
			if _, err := s.Reap(); !errors.Is(err, jobs.ErrBadClock) {
				t.Errorf("reap at %s: %v", reading, err)
			}
		}

		// A clock that stands still just below the end of time: two more
		// creation times, then none.
		o := jobs.Options{LeaseDuration: time.Nanosecond, BackoffBase: time.Nanosecond, BackoffMax: time.Nanosecond}
		o.Clock = func() time.Time { return storage.MaxTimestamp.Time().Add(-time.Nanosecond) }
		s, err := jobs.NewStore(e, o)
		if err != nil {
			t.Fatal(err)
		}
		q := s.System()
		a := mustEnqueue(t, q, "a", jobs.EnqueueOptions{})
		b := mustEnqueue(t, q, "b", jobs.EnqueueOptions{})
		if _, err := q.Enqueue(nil, jobs.EnqueueOptions{}); !errors.Is(err, jobs.ErrBadClock) {
			t.Fatalf("enqueue with no creation time left: %v", err)
		}
		if !a.Created.Before(b.Created) {
			t.Fatalf("creation times %s, %s do not increase", a.Created, b.Created)
		}
		if l := mustClaim(t, q, "w"); l.ID != a.ID {
			t.Fatalf("claimed %s, want the first job", l.ID)
		}
	})
}
