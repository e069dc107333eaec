package jobs_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

// ledger records what workers did, and fails the test on a double claim.
type ledger struct {
	t         testing.TB
	inFlight  sync.Map // job id -> worker, while leased
	mu        sync.Mutex
	completed map[uuid.UUID]int // successful Complete calls per job
	runs      map[uuid.UUID]int // claims per job
	done      atomic.Int64
}

func newLedger(t testing.TB) *ledger {
	return &ledger{t: t, completed: make(map[uuid.UUID]int), runs: make(map[uuid.UUID]int)}
}

// work claims and finishes jobs of q until want jobs are complete or the
// engine fails. Every job's first attempt fails when failFirst says so.
// It returns the first error other than ErrNoJob.
func (lg *ledger) work(q *jobs.Queue, name string, want int64, failFirst func(uuid.UUID) bool) error {
	for lg.done.Load() < want {
		l, err := q.Claim(name)
		if errors.Is(err, jobs.ErrNoJob) {
			time.Sleep(100 * time.Microsecond)
			continue
		}
		if err != nil {
			return err
		}
		if other, dup := lg.inFlight.LoadOrStore(l.ID, name); dup {
			lg.t.Errorf("job %s claimed by %s while leased to %s", l.ID, name, other)
		}
		lg.mu.Lock()
		lg.runs[l.ID]++
		lg.mu.Unlock()
		runtime.Gosched() // the "work": let other workers try to claim
		lg.inFlight.Delete(l.ID)
		if l.Attempts == 1 && failFirst(l.ID) {
			if _, err := q.Fail(l, errors.New("first attempt fails")); err != nil {
				return err
			}
			continue
		}
		if err := q.Complete(l); err != nil {
			return err
		}
		lg.mu.Lock()
		lg.completed[l.ID]++
		lg.mu.Unlock()
		lg.done.Add(1)
	}
	return nil
}

// check verifies that each of ids was completed exactly once.
func (lg *ledger) check(ids []uuid.UUID) {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	if len(lg.completed) != len(ids) {
		lg.t.Errorf("%d jobs completed, want %d", len(lg.completed), len(ids))
	}
	for _, id := range ids {
		if n := lg.completed[id]; n != 1 {
			lg.t.Errorf("job %s completed %d times", id, n)
		}
	}
}

// everyFifth fails the first attempt of about a fifth of the jobs.
func everyFifth(id uuid.UUID) bool { return id[15]%5 == 0 }

func TestConcurrentWorkers(t *testing.T) {
	const workers, producers, perProducer = 8, 2, 250
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s, err := jobs.NewStore(e, jobs.Options{BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		q := tenantQueue(t, s, 1)
		lg := newLedger(t)
		var (
			wg    sync.WaitGroup
			idsMu sync.Mutex
			ids   []uuid.UUID
		)
		errs := make(chan error, workers+producers)
		for p := range producers {
			wg.Go(func() {
				for i := range perProducer {
					j, err := q.Enqueue(fmt.Appendf(nil, "p%d-%d", p, i), jobs.EnqueueOptions{Priority: jobs.Priority(i % 3 * 64)})
					if err != nil {
						errs <- err
						return
					}
					idsMu.Lock()
					ids = append(ids, j.ID)
					idsMu.Unlock()
				}
			})
		}
		for w := range workers {
			wg.Go(func() {
				if err := lg.work(q, fmt.Sprintf("w%d", w), producers*perProducer, everyFifth); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		lg.check(ids)
		for _, st := range []jobs.State{jobs.Queued, jobs.Leased, jobs.Failed, jobs.Dead} {
			if js, err := q.List(st); err != nil || len(js) != 0 {
				t.Fatalf("%d jobs left %s (%v)", len(js), st, err)
			}
		}
		if js, err := q.List(jobs.Completed); err != nil || len(js) != len(ids) {
			t.Fatalf("%d jobs completed in storage (%v), want %d", len(js), err, len(ids))
		}
	})
}

// TestCrashAndReopen closes a durable engine under 8 busy workers, reopens
// it, and checks that the reaper returns the jobs that were leased at the
// crash and that every job is then completed exactly once.
func TestCrashAndReopen(t *testing.T) {
	storagetest.EachDurableEngine(t, func(t *testing.T, env *storagetest.Env) {
		const workers, total = 8, 500
		var offset atomic.Int64 // added to the wall clock: jumps past leases
		opts := jobs.Options{
			Clock:         func() time.Time { return time.Now().Add(time.Duration(offset.Load())) },
			LeaseDuration: time.Hour,
			BackoffBase:   time.Millisecond,
			BackoffMax:    2 * time.Millisecond,
		}
		e := env.Engine
		s, err := jobs.NewStore(e, opts)
		if err != nil {
			t.Fatal(err)
		}
		q := tenantQueue(t, s, 1)
		ids := make([]uuid.UUID, total)
		for i := range ids {
			ids[i] = mustEnqueue(t, q, fmt.Sprint(i), jobs.EnqueueOptions{}).ID
		}

		lg := newLedger(t)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				err := lg.work(q, fmt.Sprintf("w%d", w), total, everyFifth)
				if err != nil && !errors.Is(err, storage.ErrClosed) {
					t.Errorf("worker before the crash: %v", err)
				}
			})
		}
		for lg.done.Load() < total/3 {
			time.Sleep(time.Millisecond)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		before := lg.done.Load()
		if before >= total {
			t.Fatalf("all %d jobs finished before the crash", before)
		}

		e = env.Reopen(t)
		if s, err = jobs.NewStore(e, opts); err != nil {
			t.Fatal(err)
		}
		q = tenantQueue(t, s, 1)
		counts := map[jobs.State]int{}
		for _, st := range []jobs.State{jobs.Queued, jobs.Leased, jobs.Completed, jobs.Failed, jobs.Dead} {
			js, err := q.List(st)
			if err != nil {
				t.Fatal(err)
			}
			counts[st] = len(js)
		}
		if counts[jobs.Completed] != int(before) || counts[jobs.Dead] != 0 {
			t.Fatalf("after reopen %v; want %d completed, none dead", counts, before)
		}
		if n := counts[jobs.Queued] + counts[jobs.Leased] + counts[jobs.Completed] + counts[jobs.Failed]; n != total {
			t.Fatalf("after reopen %d jobs (%v), want %d: jobs were lost", n, counts, total)
		}
		offset.Store(int64(2 * time.Hour))
		r, err := s.Reap()
		if err != nil || r.Requeued != counts[jobs.Leased] || r.Dead != 0 {
			t.Fatalf("reap after reopen: %+v, %v; want %d requeued", r, err, counts[jobs.Leased])
		}
		t.Logf("crash after %d completions; %d leases reaped", before, r.Requeued)

		for w := range workers {
			wg.Go(func() {
				if err := lg.work(q, fmt.Sprintf("v%d", w), total, everyFifth); err != nil {
					t.Errorf("worker after the crash: %v", err)
				}
			})
		}
		wg.Wait()
		lg.check(ids)
	})
}
