package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

// sharedIDs are the job ids every tenant and the system queue use.
var sharedIDs = []uuid.UUID{{0xA1}, {0xA2}, {0xA3}}

func TestTenantsAndSystemAreIsolated(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock() // frozen: the refs of all queues are equal too
		s := newStore(t, e, c)
		queues := map[string]*jobs.Queue{"system": s.System()}
		for n := byte(1); n <= 3; n++ {
			queues[fmt.Sprintf("tenant%d", n)] = tenantQueue(t, s, n)
		}

		// System jobs first: no tenant may claim them.
		for _, id := range sharedIDs {
			mustEnqueue(t, s.System(), "system/"+id.String(), jobs.EnqueueOptions{ID: id})
		}
		for name, q := range queues {
			if name == "system" {
				continue
			}
			if _, err := q.Claim("w"); !errors.Is(err, jobs.ErrNoJob) {
				t.Fatalf("%s claimed before it had jobs: %v", name, err)
			}
			for _, id := range sharedIDs {
				mustEnqueue(t, q, name+"/"+id.String(), jobs.EnqueueOptions{ID: id})
			}
		}

		for name, q := range queues {
			queued, err := q.List(jobs.Queued)
			if err != nil {
				t.Fatal(err)
			}
			if len(queued) != len(sharedIDs) {
				t.Fatalf("%s lists %d queued jobs, want %d", name, len(queued), len(sharedIDs))
			}
			for i, j := range queued {
				if want := name + "/" + sharedIDs[i].String(); string(j.Payload) != want {
					t.Fatalf("%s lists %q, want %q", name, j.Payload, want)
				}
			}
			// Equal refs resolve to each queue's own job.
			if j := mustState(t, q, queued[0].Ref, jobs.Queued); string(j.Payload) != name+"/"+sharedIDs[0].String() {
				t.Fatalf("%s get = %q", name, j.Payload)
			}
		}
		for name, q := range queues {
			for _, id := range sharedIDs {
				l := mustClaim(t, q, name)
				if want := name + "/" + id.String(); l.ID != id || string(l.Payload) != want {
					t.Fatalf("%s claimed %s %q, want %q", name, l.ID, l.Payload, want)
				}
				if err := q.Complete(l); err != nil {
					t.Fatalf("%s complete: %v", name, err)
				}
			}
			if _, err := q.Claim(name); !errors.Is(err, jobs.ErrNoJob) {
				t.Fatalf("%s claimed beyond its own jobs: %v", name, err)
			}
		}
	})
}

func TestReaperAcrossTenants(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		s := newStore(t, e, c)
		queues := []*jobs.Queue{s.System(), tenantQueue(t, s, 1), tenantQueue(t, s, 2), tenantQueue(t, s, 3)}
		leases := make([]jobs.Lease, len(queues))
		for i, q := range queues {
			mustEnqueue(t, q, q.String(), jobs.EnqueueOptions{ID: sharedIDs[0], MaxAttempts: 2})
			leases[i] = mustClaim(t, q, "crashed")
		}

		if r, err := s.Reap(); err != nil || r != (jobs.Reaped{}) {
			t.Fatalf("reap before expiry: %+v, %v", r, err)
		}
		// Tenant 3's worker is alive and renews; the others went away.
		c.Advance(9 * time.Second)
		if _, err := queues[3].Heartbeat(leases[3]); err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Second) // the others expire exactly now
		if r, err := s.Reap(); err != nil || r != (jobs.Reaped{Requeued: 3}) {
			t.Fatalf("reap: %+v, %v, want 3 requeued", r, err)
		}
		for i, q := range queues[:3] {
			j := mustState(t, q, leases[i].Ref, jobs.Queued)
			if j.Attempts != 1 || j.Owner != "crashed" || j.LastError == "" || string(j.Payload) != q.String() {
				t.Fatalf("requeued job of %s = %+v", q, j)
			}
			leases[i] = mustClaim(t, q, "second")
			if leases[i].Attempts != 2 || string(leases[i].Payload) != q.String() {
				t.Fatalf("reclaimed job of %s = %+v", q, leases[i].Job)
			}
		}
		mustState(t, queues[3], leases[3].Ref, jobs.Leased)

		// The second workers go away too: the attempts are spent.
		c.Advance(time.Minute)
		if r, err := s.Reap(); err != nil || r != (jobs.Reaped{Requeued: 1, Dead: 3}) {
			t.Fatalf("second reap: %+v, %v, want 3 dead and tenant 3 requeued", r, err)
		}
		for i, q := range queues[:3] {
			mustState(t, q, leases[i].Ref, jobs.Dead)
		}
		mustState(t, queues[3], leases[3].Ref, jobs.Queued)
	})
}

func TestReopenKeepsJobs(t *testing.T) {
	storagetest.EachDurableEngine(t, func(t *testing.T, env *storagetest.Env) {
		c := newClock()
		e := env.Engine
		s := newStore(t, e, c)
		q := tenantQueue(t, s, 1)
		done := mustEnqueue(t, q, "done", jobs.EnqueueOptions{})
		retry := mustEnqueue(t, q, "retry", jobs.EnqueueOptions{})
		mustEnqueue(t, q, "leased", jobs.EnqueueOptions{})
		waiting := mustEnqueue(t, q, "waiting", jobs.EnqueueOptions{})
		if err := q.Complete(mustClaim(t, q, "w")); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Fail(mustClaim(t, q, "w"), errors.New("later")); err != nil {
			t.Fatal(err)
		}
		leased := mustClaim(t, q, "w")
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}

		e = env.Reopen(t)
		s = newStore(t, e, c)
		q = tenantQueue(t, s, 1)
		mustState(t, q, done.Ref, jobs.Completed)
		mustState(t, q, leased.Ref, jobs.Leased)
		mustState(t, q, retry.Ref, jobs.Failed)
		// FIFO survives the restart, and the new process's enqueues come later
		// (within a process the queue orders enqueues of one microsecond; across
		// processes it relies on the clock).
		c.Advance(time.Millisecond)
		mustEnqueue(t, q, "after restart", jobs.EnqueueOptions{})
		if l := mustClaim(t, q, "w"); l.ID != waiting.ID {
			t.Fatalf("first claim after reopen = %q, want waiting", l.Payload)
		}
		c.Advance(time.Minute)
		if r, err := s.Reap(); err != nil || r.Requeued != 2 {
			t.Fatalf("reap after reopen: %+v, %v", r, err)
		}
		// The failed job's backoff has ended: it keeps its place at the front.
		for _, want := range []string{"retry", "leased", "waiting", "after restart"} {
			if l := mustClaim(t, q, "w"); string(l.Payload) != want {
				t.Fatalf("claimed %q, want %q", l.Payload, want)
			}
		}
	})
}

func TestRunReaper(t *testing.T) {
	c := newClock()
	s := newStore(t, storage.NewMemoryEngine(), c)
	q := s.System()
	j := mustEnqueue(t, q, "abandoned", jobs.EnqueueOptions{})
	mustClaim(t, q, "gone")
	c.Advance(time.Minute)

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- s.RunReaper(ctx, time.Millisecond) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := q.Get(j.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if got.State == jobs.Queued {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reaper loop did not requeue the job: %s", got.State)
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-stopped; err != nil {
		t.Fatalf("reaper loop: %v", err)
	}
}
