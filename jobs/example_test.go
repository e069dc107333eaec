package jobs_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/jobs"
)

// A worker round trip: enqueue, claim, fail once, wait out the backoff,
// claim again, complete.
func Example() {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	store, err := jobs.NewStore(storage.NewMemoryEngine(), jobs.Options{
		Clock:       func() time.Time { return now },
		BackoffBase: time.Second,
	})
	if err != nil {
		panic(err)
	}
	scope, err := storage.NewTenantScope(uuid.MustParse("0190a000-0000-7000-8000-000000000001"), uuid.MustParse("0190a000-0000-7000-8000-000000000002"))
	if err != nil {
		panic(err)
	}
	q, err := store.Tenant(scope)
	if err != nil {
		panic(err)
	}

	if _, err := q.Enqueue([]byte("send welcome mail"), jobs.EnqueueOptions{Priority: jobs.PriorityNormal}); err != nil {
		panic(err)
	}
	lease, err := q.Claim("worker-1")
	if err != nil {
		panic(err)
	}
	fmt.Printf("claimed %q, attempt %d of %d\n", lease.Payload, lease.Attempts, lease.MaxAttempts)
	job, err := q.Fail(lease, errors.New("smtp timeout"))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s until %s: %s\n", job.State, job.NotBefore.Format(time.TimeOnly), job.LastError)

	if _, err := q.Claim("worker-1"); errors.Is(err, jobs.ErrNoJob) {
		fmt.Println("nothing ready during the backoff")
	}
	now = now.Add(time.Second)
	lease, err = q.Claim("worker-1")
	if err != nil {
		panic(err)
	}
	if err := q.Complete(lease); err != nil {
		panic(err)
	}
	job, err = q.Get(lease.Ref)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s after %d attempts\n", job.State, job.Attempts)
	// Output:
	// claimed "send welcome mail", attempt 1 of 5
	// failed until 12:00:01: smtp timeout
	// nothing ready during the backoff
	// completed after 2 attempts
}
