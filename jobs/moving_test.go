package jobs_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

// A queue writes its state changes with its mutex released, marking the
// jobs they move. These tests hold one write in the engine, as a slow sync
// would, and check what other operations do meanwhile: none acts on a job
// whose write is in flight, and none waits for the writes of other jobs.

// gatedEngine passes every call to its engine, except that a write can be
// held or failed: see hold and failNext.
type gatedEngine struct {
	storage.Engine
	mu   sync.Mutex
	next func() error // run by the next write before it is applied; nil passes
}

func (g *gatedEngine) Write(b *storage.Batch) error {
	if err := g.gate(); err != nil {
		return err
	}
	return g.Engine.Write(b)
}

func (g *gatedEngine) WriteDurable(b *storage.Batch) error {
	if err := g.gate(); err != nil {
		return err
	}
	return g.Engine.WriteDurable(b)
}

func (g *gatedEngine) gate() error {
	g.mu.Lock()
	f := g.next
	g.next = nil
	g.mu.Unlock()
	if f == nil {
		return nil
	}
	return f()
}

// hold makes the next write wait, before it is applied, until release is
// called; entered is closed once the write is waiting.
func (g *gatedEngine) hold() (entered <-chan struct{}, release func()) {
	in, out := make(chan struct{}), make(chan struct{})
	g.mu.Lock()
	g.next = func() error {
		close(in)
		<-out
		return nil
	}
	g.mu.Unlock()
	return in, sync.OnceFunc(func() { close(out) })
}

// failNext makes the next write fail with err, applying nothing.
func (g *gatedEngine) failNext(err error) {
	g.mu.Lock()
	g.next = func() error { return err }
	g.mu.Unlock()
}

// forEachGated runs f on a gated engine of every kind, with a queue of
// tenant 1 on clock c.
func forEachGated(t *testing.T, f func(t *testing.T, g *gatedEngine, s *jobs.Store, q *jobs.Queue, c *clock)) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		g := &gatedEngine{Engine: env.Engine}
		c := newClock()
		s := newStore(t, g, c)
		f(t, g, s, tenantQueue(t, s, 1), c)
	})
}

// await waits for a result from ch, failing the test if none comes within
// hangTimeout: the operation is blocked on another job's write.
func await[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangTimeout):
		t.Fatalf("%s did not return within %v: it waits for another job's write", what, hangTimeout)
		panic("unreachable")
	}
}

// hangTimeout bounds operations that must not wait for a held write. It is
// generous: it tells a deadlock from a slow machine, nothing finer.
const hangTimeout = 20 * time.Second

// inBackground runs f in a goroutine and returns the channel of its
// result.
func inBackground[T any](f func() T) <-chan T {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	return ch
}

type leaseResult struct {
	l   jobs.Lease
	err error
}

func claimIn(q *jobs.Queue, owner string) <-chan leaseResult {
	return inBackground(func() leaseResult {
		l, err := q.Claim(owner)
		return leaseResult{l, err}
	})
}

// TestClaimStepsOverMovingJob holds the write of one claim: other claims
// return the next jobs without waiting for it, including after an urgent
// enqueue sends claims back to the head of the queue, where the held job
// still reads as queued; then they find none.
func TestClaimStepsOverMovingJob(t *testing.T) {
	forEachGated(t, func(t *testing.T, g *gatedEngine, _ *jobs.Store, q *jobs.Queue, _ *clock) {
		first := mustEnqueue(t, q, "first", jobs.EnqueueOptions{})
		second := mustEnqueue(t, q, "second", jobs.EnqueueOptions{})
		entered, release := g.hold()
		defer release()
		held := claimIn(q, "a")
		<-entered
		claim := func(owner string) leaseResult {
			return await(t, "a claim while another claim's write is held", claimIn(q, owner))
		}
		if r := claim("b"); r.err != nil || r.l.ID != second.ID {
			t.Fatalf("second claim = %s, %v; want the second job", r.l.ID, r.err)
		}
		urgent := mustEnqueue(t, q, "urgent", jobs.EnqueueOptions{Priority: jobs.PriorityHigh})
		if r := claim("c"); r.err != nil || r.l.ID != urgent.ID {
			t.Fatalf("claim after an urgent enqueue = %s, %v; want the urgent job", r.l.ID, r.err)
		}
		if r := claim("d"); !errors.Is(r.err, jobs.ErrNoJob) {
			t.Fatalf("last claim = %s, %v; want ErrNoJob (the first job is being claimed)", r.l.ID, r.err)
		}
		release()
		if r := await(t, "the held claim", held); r.err != nil || r.l.ID != first.ID {
			t.Fatalf("held claim = %s, %v; want the first job", r.l.ID, r.err)
		}
		mustState(t, q, first.Ref, jobs.Leased)
		mustState(t, q, second.Ref, jobs.Leased)
	})
}

// TestOneJobOneWriteInFlight holds the write of a Complete and races every
// other operation on the same lease against it: each waits for the write to
// land, then finds the lease spent. Without the wait, they would write the
// job into a second state.
func TestOneJobOneWriteInFlight(t *testing.T) {
	ops := []struct {
		name string
		do   func(q *jobs.Queue, l jobs.Lease) error
	}{
		{"complete", func(q *jobs.Queue, l jobs.Lease) error { return q.Complete(l) }},
		{"fail", func(q *jobs.Queue, l jobs.Lease) error { _, err := q.Fail(l, nil); return err }},
		{"heartbeat", func(q *jobs.Queue, l jobs.Lease) error { _, err := q.Heartbeat(l); return err }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			forEachGated(t, func(t *testing.T, g *gatedEngine, _ *jobs.Store, q *jobs.Queue, _ *clock) {
				j := mustEnqueue(t, q, "x", jobs.EnqueueOptions{})
				l := mustClaim(t, q, "w")
				entered, release := g.hold()
				defer release()
				completed := inBackground(func() error { return q.Complete(l) })
				<-entered
				racing := inBackground(func() error { return op.do(q, l) })
				got := inBackground(func() error { _, err := q.Get(j.Ref); return err })
				// Give them time to act on the job, should they not wait:
				// nothing below depends on how long this takes.
				time.Sleep(50 * time.Millisecond)
				release()
				if err := await(t, "the held complete", completed); err != nil {
					t.Fatal(err)
				}
				if err := await(t, op.name, racing); !errors.Is(err, jobs.ErrLeaseLost) {
					t.Fatalf("%s during the complete's write: %v, want ErrLeaseLost", op.name, err)
				}
				if err := await(t, "get", got); err != nil {
					t.Fatalf("get during the complete's write: %v", err)
				}
				for _, st := range []jobs.State{jobs.Queued, jobs.Leased, jobs.Failed, jobs.Dead} {
					if js, err := q.List(st); err != nil || len(js) != 0 {
						t.Fatalf("%d jobs %s (%v): the job is in two states", len(js), st, err)
					}
				}
				mustState(t, q, j.Ref, jobs.Completed)
			})
		})
	}
}

// TestFailedClaimWriteLeavesJobQueued fails the write of a claim: the job
// stays queued, and the next claim takes it.
func TestFailedClaimWriteLeavesJobQueued(t *testing.T) {
	forEachGated(t, func(t *testing.T, g *gatedEngine, _ *jobs.Store, q *jobs.Queue, _ *clock) {
		j := mustEnqueue(t, q, "x", jobs.EnqueueOptions{})
		later := mustEnqueue(t, q, "later", jobs.EnqueueOptions{})
		boom := errors.New("device gone")
		g.failNext(boom)
		if _, err := q.Claim("w"); !errors.Is(err, boom) {
			t.Fatalf("claim with a failing write: %v, want %v", err, boom)
		}
		mustState(t, q, j.Ref, jobs.Queued)
		if l := mustClaim(t, q, "w"); l.ID != j.ID {
			t.Fatalf("claim after the failure took %s, want the first job", l.ID)
		}
		if l := mustClaim(t, q, "w"); l.ID != later.ID {
			t.Fatalf("next claim took %s, want the later job", l.ID)
		}
	})
}

// TestFailDuringPromotion fails a job while the claim that promotes another
// failed job is writing: the new failure's backoff end must survive the
// promotion, so that the job is claimed once it is due.
func TestFailDuringPromotion(t *testing.T) {
	forEachGated(t, func(t *testing.T, g *gatedEngine, _ *jobs.Store, q *jobs.Queue, c *clock) {
		first := mustEnqueue(t, q, "first", jobs.EnqueueOptions{})
		second := mustEnqueue(t, q, "second", jobs.EnqueueOptions{})
		l1, l2 := mustClaim(t, q, "w1"), mustClaim(t, q, "w2")
		if _, err := q.Fail(l1, nil); err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Second) // the first job's backoff ends
		entered, release := g.hold()
		defer release()
		promoting := claimIn(q, "a")
		<-entered // the promotion of the first job is being written
		if _, err := q.Fail(l2, nil); err != nil {
			t.Fatal(err)
		}
		release()
		if r := await(t, "the promoting claim", promoting); r.err != nil || r.l.ID != first.ID {
			t.Fatalf("promoting claim = %s, %v; want the first job", r.l.ID, r.err)
		}
		c.Advance(time.Second) // the second job's backoff ends
		if l := mustClaim(t, q, "b"); l.ID != second.ID {
			t.Fatalf("claim after the second backoff took %s, want the second job", l.ID)
		}
	})
}
