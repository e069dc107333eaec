package jobs_test

import (
	"errors"
	"testing"
	"time"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

// TestWipeResetsQueue: after a tenant wipe, rows that come back by another
// path than this queue's Enqueue (here a second Store on the engine, as a
// restore or an import would write them) must be claimed. Before, the
// queue's claim cursor skipped rows before the last claim and its backoff
// mark skipped failed jobs that were due.
func TestWipeResetsQueue(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		s := newStore(t, e, c)
		q := tenantQueue(t, s, 1)
		other := tenantQueue(t, newStore(t, e, c), 2)
		mustEnqueue(t, other, "other tenant", jobs.EnqueueOptions{})
		mustEnqueue(t, q, "claimed", jobs.EnqueueOptions{})
		if err := q.Complete(mustClaim(t, q, "w")); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Claim("w"); !errors.Is(err, jobs.ErrNoJob) { // no failed job: no backoff to wait for
			t.Fatalf("claim of an empty queue: %v", err)
		}
		if err := storage.WipeTenant(e, tenant(t, 1)); err != nil {
			t.Fatal(err)
		}

		// The rows come back through another Store, with earlier times: a
		// queued job, and a failed job whose backoff has ended.
		earlier := &clock{now: c.Now().Add(-time.Hour)}
		restorer := tenantQueue(t, newStore(t, e, earlier), 1)
		queued := mustEnqueue(t, restorer, "restored queued", jobs.EnqueueOptions{})
		mustEnqueue(t, restorer, "restored failed", jobs.EnqueueOptions{Priority: jobs.PriorityHigh})
		if _, err := restorer.Fail(mustClaim(t, restorer, "w"), errors.New("retry")); err != nil {
			t.Fatal(err)
		}

		got := map[string]bool{}
		for range 2 {
			l, err := q.Claim("w")
			if err != nil {
				t.Fatalf("claim after the wipe: %v (claimed so far %v)", err, got)
			}
			got[string(l.Payload)] = true
		}
		if !got["restored queued"] || !got["restored failed"] {
			t.Fatalf("claimed %v after the wipe", got)
		}
		mustState(t, q, queued.Ref, jobs.Leased)
		if _, err := other.Claim("w"); err != nil {
			t.Fatalf("the other tenant's queue: %v", err)
		}
	})
}
