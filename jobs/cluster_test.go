package jobs_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

// Several processes on one etcd namespace, each a child process of this
// test binary with a Store of its own, so that nothing but the store keeps
// their claims apart.

func init() { storagetest.RegisterChild("jobs", jobsChild) }

// jobsChild serves a Store on the engine of args (etcdtest.ChildArgs), on
// the queue of its tenant:
//
//	work OWNER    claims and completes jobs until none is ready; answers
//	              the ids it completed
func jobsChild(args []string) error {
	e, scope, _, err := etcdtest.OpenChild(args)
	if err != nil {
		return err
	}
	defer e.Close()
	s, err := jobs.NewStore(e, jobs.Options{LeaseDuration: time.Hour})
	if err != nil {
		return err
	}
	q, err := s.Tenant(scope)
	if err != nil {
		return err
	}
	return storagetest.ServeCommands(func(cmd []string) (string, error) {
		if len(cmd) != 2 || cmd[0] != "work" {
			return "", fmt.Errorf("unknown command %q", cmd)
		}
		var done []string
		for {
			l, err := q.Claim(cmd[1])
			if errors.Is(err, jobs.ErrNoJob) {
				return strings.Join(done, " "), nil
			}
			if err != nil {
				return "", err
			}
			if err := q.Complete(l); err != nil {
				return "", err
			}
			done = append(done, l.ID.String())
		}
	})
}

// Four processes drain one tenant's queue at once: every job is completed
// exactly once, by one of them; none is claimed by two.
func TestProcessesDrainOneQueue(t *testing.T) {
	const (
		workers = 4
		njobs   = 120
	)
	cfg := etcdtest.Config(t)
	scope := storagetest.TenantScope(t)
	ids := enqueue(t, cfg, scope, njobs)
	type result struct {
		ids []string
		err error
	}
	results := make(chan result, workers)
	for w := range workers {
		c := storagetest.StartChild(t, "jobs", etcdtest.ChildArgs(cfg, scope)...)
		go func() {
			out, err := c.Call(5*time.Minute, "work", "worker-"+strconv.Itoa(w))
			results <- result{strings.Fields(out), err}
		}()
	}
	completed := make(map[string]int)
	for range workers {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		for _, id := range r.ids {
			completed[id]++
		}
	}
	for _, id := range ids {
		if n := completed[id]; n != 1 {
			t.Errorf("job %s completed %d times", id, n)
		}
	}
	if len(completed) != njobs {
		t.Errorf("%d distinct jobs completed, %d enqueued", len(completed), njobs)
	}
}

// enqueue queues n jobs in scope's queue through an engine of the test's.
func enqueue(t *testing.T, cfg etcd.Config, scope storage.TenantScope, n int) []string {
	t.Helper()
	e, err := etcd.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := jobs.NewStore(e, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.Tenant(scope)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range n {
		j, err := q.Enqueue([]byte(strconv.Itoa(i)), jobs.EnqueueOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID.String())
	}
	return ids
}
