package jobs_test

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/jobs"
)

// clock is a fake clock that moves only when told to.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// testOptions are short, predictable settings on clock c.
func testOptions(c *clock) jobs.Options {
	return jobs.Options{
		Clock:         c.Now,
		LeaseDuration: 10 * time.Second,
		MaxAttempts:   3,
		BackoffBase:   time.Second,
		BackoffMax:    4 * time.Second,
	}
}

// newStore opens a store on e with testOptions.
func newStore(t testing.TB, e storage.Engine, c *clock) *jobs.Store {
	t.Helper()
	s, err := jobs.NewStore(e, testOptions(c))
	if err != nil {
		t.Fatalf("new store: %v", err)
	}
	return s
}

// tenant returns a tenant scope with deterministic ids.
func tenant(t testing.TB, n byte) storage.TenantScope {
	t.Helper()
	s, err := storage.NewTenantScope(uuid.UUID{0x01, n}, uuid.UUID{0x02, n})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tenantQueue returns the queue of tenant n.
func tenantQueue(t testing.TB, s *jobs.Store, n byte) *jobs.Queue {
	t.Helper()
	q, err := s.Tenant(tenant(t, n))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// mustEnqueue enqueues payload or fails the test.
func mustEnqueue(t testing.TB, q *jobs.Queue, payload string, o jobs.EnqueueOptions) jobs.Job {
	t.Helper()
	j, err := q.Enqueue([]byte(payload), o)
	if err != nil {
		t.Fatalf("enqueue %q: %v", payload, err)
	}
	return j
}

// mustClaim claims a job or fails the test.
func mustClaim(t testing.TB, q *jobs.Queue, owner string) jobs.Lease {
	t.Helper()
	l, err := q.Claim(owner)
	if err != nil {
		t.Fatalf("claim by %s: %v", owner, err)
	}
	return l
}

// mustState checks the state of ref.
func mustState(t testing.TB, q *jobs.Queue, ref jobs.Ref, want jobs.State) jobs.Job {
	t.Helper()
	j, err := q.Get(ref)
	if err != nil {
		t.Fatalf("get %s: %v", ref.ID, err)
	}
	if j.State != want {
		t.Fatalf("job %s is %s, want %s", ref.ID, j.State, want)
	}
	return j
}
