package jobs_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

func TestLifecycle(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		q := tenantQueue(t, newStore(t, e, c), 1)

		j := mustEnqueue(t, q, "hello", jobs.EnqueueOptions{Priority: jobs.PriorityNormal})
		if j.State != jobs.Queued || j.Attempts != 0 || j.MaxAttempts != 3 || string(j.Payload) != "hello" {
			t.Fatalf("enqueued job = %+v", j)
		}
		mustState(t, q, j.Ref, jobs.Queued)

		l := mustClaim(t, q, "w1")
		if l.ID != j.ID || l.State != jobs.Leased || l.Attempts != 1 || l.Owner != "w1" || string(l.Payload) != "hello" {
			t.Fatalf("lease = %+v", l)
		}
		if want := c.Now().Add(10 * time.Second); !l.LeaseExpiry.Equal(want) {
			t.Fatalf("lease expiry %s, want %s", l.LeaseExpiry, want)
		}
		if _, err := q.Claim("w2"); !errors.Is(err, jobs.ErrNoJob) {
			t.Fatalf("second claim: %v, want ErrNoJob", err)
		}

		c.Advance(8 * time.Second)
		l, err := q.Heartbeat(l)
		if err != nil {
			t.Fatalf("heartbeat: %v", err)
		}
		if want := c.Now().Add(10 * time.Second); !l.LeaseExpiry.Equal(want) {
			t.Fatalf("renewed expiry %s, want %s", l.LeaseExpiry, want)
		}
		c.Advance(8 * time.Second) // past the first expiry, within the renewed one
		if err := q.Complete(l); err != nil {
			t.Fatalf("complete: %v", err)
		}
		done := mustState(t, q, j.Ref, jobs.Completed)
		if done.Attempts != 1 || done.Owner != "w1" || !done.LeaseExpiry.IsZero() {
			t.Fatalf("completed job = %+v", done)
		}
		if err := q.Complete(l); !errors.Is(err, jobs.ErrLeaseLost) {
			t.Fatalf("second complete: %v, want ErrLeaseLost", err)
		}
	})
}

func TestClaimOrder(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock() // frozen: FIFO must not depend on the clock moving
		q := tenantQueue(t, newStore(t, e, c), 1)
		enqueue := []struct {
			name string
			prio jobs.Priority
		}{
			{"low-1", jobs.PriorityLow}, {"normal-1", jobs.PriorityNormal}, {"high-1", jobs.PriorityHigh},
			{"low-2", jobs.PriorityLow}, {"max", 255}, {"normal-2", jobs.PriorityNormal},
			{"min", 0}, {"high-2", jobs.PriorityHigh}, {"normal-3", jobs.PriorityNormal},
		}
		for i, j := range enqueue {
			// Descending ids make sure order comes from the creation time,
			// not the id.
			mustEnqueue(t, q, j.name, jobs.EnqueueOptions{ID: uuid.UUID{byte(255 - i), 1}, Priority: j.prio})
		}
		want := []string{"max", "high-1", "high-2", "normal-1", "normal-2", "normal-3", "low-1", "low-2", "min"}
		for i, w := range want {
			l := mustClaim(t, q, "w")
			if string(l.Payload) != w {
				t.Fatalf("claim %d = %q, want %q", i, l.Payload, w)
			}
			if i == 3 {
				// A late higher-priority job jumps ahead of the rest.
				mustEnqueue(t, q, "late-high", jobs.EnqueueOptions{Priority: jobs.PriorityHigh})
				if l := mustClaim(t, q, "w"); string(l.Payload) != "late-high" {
					t.Fatalf("claim after late enqueue = %q, want late-high", l.Payload)
				}
			}
		}
		if _, err := q.Claim("w"); !errors.Is(err, jobs.ErrNoJob) {
			t.Fatalf("claim on empty queue: %v", err)
		}
	})
}

func TestFailBackoffDead(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		q := tenantQueue(t, newStore(t, e, c), 1)
		j := mustEnqueue(t, q, "flaky", jobs.EnqueueOptions{})
		other := mustEnqueue(t, q, "other", jobs.EnqueueOptions{})

		// Attempt n fails and waits base<<(n-1); the third attempt is the last.
		for attempt, wait := range []time.Duration{time.Second, 2 * time.Second} {
			l := mustClaim(t, q, "w")
			if l.ID != j.ID || l.Attempts != attempt+1 {
				t.Fatalf("attempt %d claimed %+v", attempt+1, l.Job)
			}
			f, err := q.Fail(l, fmt.Errorf("boom %d", attempt+1))
			if err != nil {
				t.Fatalf("fail: %v", err)
			}
			if f.State != jobs.Failed || f.LastError != fmt.Sprintf("boom %d", attempt+1) || !f.NotBefore.Equal(c.Now().Add(wait)) {
				t.Fatalf("failed job = %+v, want not before %s", f, c.Now().Add(wait))
			}
			// During the backoff the queue serves other work, then nothing.
			if attempt == 0 {
				if l := mustClaim(t, q, "w"); l.ID != other.ID {
					t.Fatalf("claim during backoff = %s, want the other job", l.ID)
				}
			}
			if _, err := q.Claim("w"); !errors.Is(err, jobs.ErrNoJob) {
				t.Fatalf("claim during backoff: %v, want ErrNoJob", err)
			}
			c.Advance(wait - time.Microsecond)
			if _, err := q.Claim("w"); !errors.Is(err, jobs.ErrNoJob) {
				t.Fatalf("claim just before the backoff ends: %v, want ErrNoJob", err)
			}
			c.Advance(time.Microsecond)
		}
		l := mustClaim(t, q, "w")
		f, err := q.Fail(l, errors.New("final"))
		if err != nil {
			t.Fatalf("last fail: %v", err)
		}
		if f.State != jobs.Dead || f.Attempts != 3 {
			t.Fatalf("job after the last attempt = %+v, want dead after 3", f)
		}
		mustState(t, q, j.Ref, jobs.Dead)
		c.Advance(time.Hour)
		if _, err := q.Claim("w"); !errors.Is(err, jobs.ErrNoJob) {
			t.Fatalf("a dead job was claimed: %v", err)
		}
	})
}

func TestBackoffCap(t *testing.T) {
	c := newClock()
	s := newStore(t, storage.NewMemoryEngine(), c)
	q := tenantQueue(t, s, 1)
	j := mustEnqueue(t, q, "x", jobs.EnqueueOptions{MaxAttempts: 6})
	for n, want := range []time.Duration{1, 2, 4, 4, 4} {
		l := mustClaim(t, q, "w")
		f, err := q.Fail(l, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.NotBefore.Sub(c.Now()); got != want*time.Second || f.LastError != "failed" {
			t.Fatalf("failure %d: backoff %s (%q), want %s", n+1, got, f.LastError, want*time.Second)
		}
		c.Advance(time.Minute)
	}
	l := mustClaim(t, q, "w")
	if f, err := q.Fail(l, nil); err != nil || f.State != jobs.Dead || f.ID != j.ID {
		t.Fatalf("sixth failure: %+v, %v", f, err)
	}
}

func TestLeaseErrors(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		s := newStore(t, e, c)
		q := tenantQueue(t, s, 1)

		// expire lets a's lease run out and the reaper requeue the job.
		expire := func() {
			c.Advance(11 * time.Second)
			if r, err := s.Reap(); err != nil || r.Requeued != 1 {
				t.Fatalf("reap: %+v, %v", r, err)
			}
		}
		tests := []struct {
			name  string
			setup func(l jobs.Lease) jobs.Lease // returns the lease to present
			want  error
		}{
			{"unknown job", func(l jobs.Lease) jobs.Lease { l.ID = uuid.New(); return l }, jobs.ErrUnknownJob},
			{"other priority is another job", func(l jobs.Lease) jobs.Lease { l.Priority++; return l }, jobs.ErrUnknownJob},
			{"wrong owner", func(l jobs.Lease) jobs.Lease { l.Owner = "intruder"; return l }, jobs.ErrWrongOwner},
			{"expired", func(l jobs.Lease) jobs.Lease { c.Advance(10 * time.Second); return l }, jobs.ErrLeaseLost},
			{"reaped", func(l jobs.Lease) jobs.Lease { expire(); return l }, jobs.ErrLeaseLost},
			{"reclaimed by another", func(l jobs.Lease) jobs.Lease { expire(); mustClaim(t, q, "b"); return l }, jobs.ErrWrongOwner},
			{"stale lease of the same owner", func(l jobs.Lease) jobs.Lease { expire(); mustClaim(t, q, "a"); return l }, jobs.ErrLeaseLost},
			{"completed", func(l jobs.Lease) jobs.Lease {
				if err := q.Complete(l); err != nil {
					t.Fatal(err)
				}
				return l
			}, jobs.ErrLeaseLost},
		}
		ops := []struct {
			name string
			do   func(l jobs.Lease) error
		}{
			{"heartbeat", func(l jobs.Lease) error { _, err := q.Heartbeat(l); return err }},
			{"complete", q.Complete},
			{"fail", func(l jobs.Lease) error { _, err := q.Fail(l, nil); return err }},
		}
		for _, tt := range tests {
			for _, op := range ops {
				t.Run(tt.name+"/"+op.name, func(t *testing.T) {
					mustEnqueue(t, q, tt.name, jobs.EnqueueOptions{MaxAttempts: 10})
					l := mustClaim(t, q, "a")
					err := op.do(tt.setup(l))
					if !errors.Is(err, tt.want) {
						t.Fatalf("%s: %v, want %v", op.name, err, tt.want)
					}
					// Leave the queue empty for the next case.
					c.Advance(time.Hour)
					if _, err := s.Reap(); err != nil {
						t.Fatal(err)
					}
					for {
						l, err := q.Claim("cleanup")
						if errors.Is(err, jobs.ErrNoJob) {
							break
						}
						if err != nil {
							t.Fatal(err)
						}
						if err := q.Complete(l); err != nil {
							t.Fatal(err)
						}
					}
				})
			}
		}
		if _, err := q.Get(jobs.Ref{ID: uuid.New()}); !errors.Is(err, jobs.ErrUnknownJob) {
			t.Fatalf("get unknown: %v", err)
		}
	})
}

func TestBadInput(t *testing.T) {
	c := newClock()
	s := newStore(t, storage.NewMemoryEngine(), c)
	q := tenantQueue(t, s, 1)
	long := string(make([]byte, jobs.MaxOwnerLen+1))
	for _, owner := range []string{"", long} {
		if _, err := q.Claim(owner); !errors.Is(err, jobs.ErrBadOwner) {
			t.Errorf("claim by %d-byte owner: %v, want ErrBadOwner", len(owner), err)
		}
	}
	if _, err := q.Enqueue(nil, jobs.EnqueueOptions{MaxAttempts: -1}); err == nil {
		t.Error("enqueue with negative max attempts succeeded")
	}
	if _, err := q.List(0); !errors.Is(err, jobs.ErrBadState) {
		t.Errorf("list state 0: %v, want ErrBadState", err)
	}
	var unset storage.TenantScope // a scope field nobody filled in
	if _, err := s.Tenant(unset); !errors.Is(err, storage.ErrNilScope) {
		t.Errorf("queue of the zero scope: %v, want ErrNilScope", err)
	}
	for _, o := range []jobs.Options{{LeaseDuration: -1}, {MaxAttempts: -1}, {BackoffBase: time.Minute, BackoffMax: time.Second}} {
		if _, err := jobs.NewStore(storage.NewMemoryEngine(), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	// A failure cause longer than the limit is truncated, not rejected.
	mustEnqueue(t, q, "x", jobs.EnqueueOptions{})
	l := mustClaim(t, q, "w")
	f, err := q.Fail(l, errors.New(string(make([]byte, 3*jobs.MaxErrorLen))))
	if err != nil || len(f.LastError) != jobs.MaxErrorLen {
		t.Fatalf("fail with a long cause: %d-byte error, %v", len(f.LastError), err)
	}
	if j := mustState(t, q, f.Ref, jobs.Failed); len(j.LastError) != jobs.MaxErrorLen {
		t.Fatalf("stored error of %d bytes", len(j.LastError))
	}
}

func TestMalformedValueIsBuried(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		q := tenantQueue(t, newStore(t, e, c), 1)
		// A row some other writer left in the queue, ahead of a good job.
		garbage := []byte{0xEE, 1, 2}
		id := uuid.New()
		created := storage.TimestampOf(c.Now().Add(-time.Hour))
		if err := e.Put(storage.JobKey(tenant(t, 1), storage.JobQueued, 0, created, id), garbage); err != nil {
			t.Fatal(err)
		}
		good := mustEnqueue(t, q, "good", jobs.EnqueueOptions{})
		l := mustClaim(t, q, "w")
		if l.ID != good.ID {
			t.Fatalf("claimed %s, want the good job", l.ID)
		}
		if err := q.Complete(l); err != nil {
			t.Fatal(err)
		}
		dead, err := q.List(jobs.Dead)
		if err != nil {
			t.Fatal(err)
		}
		if len(dead) != 1 || dead[0].ID != id || string(dead[0].Payload) != string(garbage) || dead[0].LastError == "" {
			t.Fatalf("dead jobs = %+v, want the buried garbage", dead)
		}
		if _, err := e.Get(storage.JobKey(tenant(t, 1), storage.JobQueued, 0, created, id)); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("garbage still queued: %v", err)
		}

		// Garbage in the failed and leased states is buried by the claim's
		// promotion and by the reaper.
		for _, st := range []storage.JobState{storage.JobFailed, storage.JobLeased} {
			if err := e.Put(storage.JobKey(tenant(t, 1), st, 0, created, uuid.New()), garbage); err != nil {
				t.Fatal(err)
			}
		}
		c.Advance(time.Minute)
		if r, err := newStore(t, e, c).Reap(); err != nil || r != (jobs.Reaped{Dead: 1}) {
			t.Fatalf("reap of a malformed lease: %+v, %v", r, err)
		}
		q = tenantQueue(t, newStore(t, e, c), 1) // a new process: unknown backoffs
		if _, err := q.Claim("w"); !errors.Is(err, jobs.ErrNoJob) {
			t.Fatalf("claim over malformed failed job: %v", err)
		}
		if dead, err = q.List(jobs.Dead); err != nil || len(dead) != 3 {
			t.Fatalf("%d dead jobs (%v), want 3", len(dead), err)
		}
	})
}

func TestDurableRoundTrip(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		o := testOptions(c)
		o.Durable = true
		s, err := jobs.NewStore(e, o)
		if err != nil {
			t.Fatal(err)
		}
		q := s.System()
		j := mustEnqueue(t, q, "durable", jobs.EnqueueOptions{})
		l := mustClaim(t, q, "w")
		if l, err = q.Heartbeat(l); err != nil {
			t.Fatal(err)
		}
		if _, err := q.Fail(l, nil); err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Minute)
		if err := q.Complete(mustClaim(t, q, "w")); err != nil {
			t.Fatal(err)
		}
		mustState(t, q, j.Ref, jobs.Completed)
	})
}

func TestClosedEngine(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		s := newStore(t, e, c)
		q := tenantQueue(t, s, 1)
		j := mustEnqueue(t, q, "x", jobs.EnqueueOptions{})
		l := mustClaim(t, q, "w")
		mustEnqueue(t, q, "y", jobs.EnqueueOptions{})
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		ops := []struct {
			name string
			do   func() error
		}{
			{"enqueue", func() error { _, err := q.Enqueue(nil, jobs.EnqueueOptions{}); return err }},
			{"claim", func() error { _, err := q.Claim("w"); return err }},
			{"heartbeat", func() error { _, err := q.Heartbeat(l); return err }},
			{"complete", func() error { return q.Complete(l) }},
			{"fail", func() error { _, err := q.Fail(l, nil); return err }},
			{"get", func() error { _, err := q.Get(j.Ref); return err }},
			{"list", func() error { _, err := q.List(jobs.Queued); return err }},
			{"reap", func() error { _, err := s.Reap(); return err }},
			{"system claim", func() error { _, err := s.System().Claim("w"); return err }},
		}
		for _, op := range ops {
			if err := op.do(); !errors.Is(err, storage.ErrClosed) {
				t.Errorf("%s on a closed engine: %v, want ErrClosed", op.name, err)
			}
		}
	})
}

// A claim's handle parses back to a lease that Complete accepts, and the
// handle of another claim, owner or job is refused as a stale lease is.
func TestLeaseHandle(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		q := tenantQueue(t, newStore(t, env.Engine, newClock()), 1)
		mustEnqueue(t, q, "first", jobs.EnqueueOptions{Priority: jobs.PriorityHigh})
		mustEnqueue(t, q, "second", jobs.EnqueueOptions{})
		parse := func(l jobs.Lease) jobs.Lease {
			t.Helper()
			back, err := jobs.ParseHandle(l.Handle())
			if err != nil {
				t.Fatal(err)
			}
			return back
		}
		first, err := q.Claim("worker-1")
		if err != nil {
			t.Fatal(err)
		}
		second, err := q.Claim("worker-2")
		if err != nil {
			t.Fatal(err)
		}
		back := parse(first)
		if back.Ref != first.Ref || back.Owner != first.Owner || back.Handle() != first.Handle() {
			t.Fatalf("ParseHandle(Handle()) = %+v, want the ref and owner of %+v", back, first)
		}
		stolen := parse(second)
		stolen.Owner = "worker-1"
		if err := q.Complete(stolen); !errors.Is(err, jobs.ErrWrongOwner) {
			t.Errorf("Complete of another owner's job = %v, want ErrWrongOwner", err)
		}
		other := parse(first)
		other.ID = uuid.New()
		if err := q.Complete(other); !errors.Is(err, jobs.ErrUnknownJob) {
			t.Errorf("Complete of a made-up job = %v, want ErrUnknownJob", err)
		}
		if err := q.Complete(back); err != nil {
			t.Errorf("Complete with the parsed handle: %v", err)
		}
		if err := q.Complete(parse(first)); !errors.Is(err, jobs.ErrLeaseLost) {
			t.Errorf("Complete twice = %v, want ErrLeaseLost", err)
		}
		if err := q.Complete(parse(second)); err != nil {
			t.Errorf("Complete of the second claim: %v", err)
		}
	})
}
