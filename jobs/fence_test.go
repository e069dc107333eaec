package jobs_test

import (
	"errors"
	"testing"
	"time"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
	"telha.dev/jobs"
)

// TestReapGoesOnPastFencedTenants expires a lease in each of two tenants,
// one of which then begins its erasure: Reap requeues the other tenant's
// job, counts the fenced one, and leaves it leased; the erasing tenant's
// queue refuses new jobs.
func TestReapGoesOnPastFencedTenants(t *testing.T) {
	e := storage.NewMemoryEngine()
	t.Cleanup(func() { _ = e.Close() })
	c := newClock()
	s := newStore(t, e, c)
	for n, name := range map[byte]string{1: "erasing", 2: "active"} {
		if err := tenants.Provision(e, tenant(t, n), name); err != nil {
			t.Fatal(err)
		}
		q := tenantQueue(t, s, n)
		mustEnqueue(t, q, "job of "+name, jobs.EnqueueOptions{})
		if _, err := q.Claim("worker"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tenants.SetState(e, tenant(t, 1), tenants.Erasing); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute)
	r, err := s.Reap()
	if err != nil || r.Requeued != 1 || r.Fenced != 1 {
		t.Errorf("Reap = %+v, %v; want the active tenant's lease requeued and the erasing one's fenced", r, err)
	}
	if _, err := tenantQueue(t, s, 1).Enqueue([]byte("late"), jobs.EnqueueOptions{}); !errors.Is(err, storage.ErrTenantNotWritable) {
		t.Errorf("enqueue in an erasing tenant: %v, want ErrTenantNotWritable", err)
	}
}
