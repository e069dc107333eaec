package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

// TestHostileInput: a store without an engine, a reaper interval that
// would panic time.NewTicker, leases of another queue and zero leases,
// and purge cutoffs at the ends of time are refused or answered, never a
// panic.
func TestHostileInput(t *testing.T) {
	if _, err := jobs.NewStore(nil, jobs.Options{}); !errors.Is(err, storage.ErrNotOpen) {
		t.Errorf("store without an engine: %v", err)
	}
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		s := newStore(t, e, c)
		for _, every := range []time.Duration{0, -time.Second} {
			if err := s.RunReaper(context.Background(), every); err == nil {
				t.Errorf("reaper every %s: no error", every)
			}
		}
		q1, q2 := tenantQueue(t, s, 1), tenantQueue(t, s, 2)
		j := mustEnqueue(t, q1, "one", jobs.EnqueueOptions{})
		l := mustClaim(t, q1, "w")
		if err := q2.Complete(l); !errors.Is(err, jobs.ErrUnknownJob) {
			t.Errorf("a lease of tenant 1 completed in tenant 2: %v", err)
		}
		if err := s.System().Complete(l); !errors.Is(err, jobs.ErrUnknownJob) {
			t.Errorf("a tenant lease completed in the system queue: %v", err)
		}
		if err := q1.Complete(jobs.Lease{}); !errors.Is(err, jobs.ErrUnknownJob) {
			t.Errorf("the zero lease: %v", err)
		}
		forged := jobs.Lease{Job: l.Job} // same job, no claim token
		if err := q1.Complete(forged); !errors.Is(err, jobs.ErrLeaseLost) {
			t.Errorf("a lease without its claim's token: %v", err)
		}
		if err := q1.Complete(l); err != nil {
			t.Fatal(err)
		}
		for _, cutoff := range []time.Time{{}, time.Unix(1<<62, 0), time.Unix(-1<<62, 0)} {
			if _, err := q1.Purge(jobs.Completed, cutoff); err != nil {
				t.Errorf("purge before %s: %v", cutoff, err)
			}
		}
		if _, err := q1.Get(j.Ref); !errors.Is(err, jobs.ErrUnknownJob) {
			t.Errorf("after a purge at the end of time: %v", err)
		}
	})
}
