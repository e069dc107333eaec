package jobs_test

import (
	"errors"
	"testing"
	"time"

	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

func TestPurge(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		s := newStore(t, e, c)
		const old = 1030 // more than one purge batch
		for _, q := range []*jobs.Queue{s.System(), tenantQueue(t, s, 1)} {
			// Old completed jobs, one old dead job, and a young completed
			// job of high priority that sorts before the old ones.
			for range old {
				mustEnqueue(t, q, "old", jobs.EnqueueOptions{})
			}
			mustEnqueue(t, q, "old dead", jobs.EnqueueOptions{MaxAttempts: 1})
			for range old {
				if err := q.Complete(mustClaim(t, q, "w")); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := q.Fail(mustClaim(t, q, "w"), errors.New("no")); err != nil {
				t.Fatal(err)
			}
			c.Advance(time.Hour)
			cutoff := c.Now()
			young := mustEnqueue(t, q, "young", jobs.EnqueueOptions{Priority: jobs.PriorityHigh})
			if err := q.Complete(mustClaim(t, q, "w")); err != nil {
				t.Fatal(err)
			}

			if n, err := q.Purge(jobs.Completed, cutoff); err != nil || n != old {
				t.Fatalf("%s: purged %d completed (%v), want %d", q, n, err, old)
			}
			left, err := q.List(jobs.Completed)
			if err != nil || len(left) != 1 || left[0].ID != young.ID {
				t.Fatalf("%s: completed after purge: %d jobs (%v), want only the young one", q, len(left), err)
			}
			if n, err := q.Purge(jobs.Dead, cutoff); err != nil || n != 1 {
				t.Fatalf("%s: purged %d dead (%v), want 1", q, n, err)
			}
			for _, st := range []jobs.State{jobs.Queued, jobs.Leased, jobs.Failed, 0} {
				if _, err := q.Purge(st, cutoff); !errors.Is(err, jobs.ErrBadState) {
					t.Fatalf("purge of %s: %v, want ErrBadState", st, err)
				}
			}
		}
	})
}
