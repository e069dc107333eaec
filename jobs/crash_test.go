package jobs_test

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage/rocksdb/rocksdbtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

// The kill test: a child process (this test binary, re-executed) runs
// crashWorkers workers on a durable RocksDB queue and is killed with
// SIGKILL at a random moment, crashRounds times.
const (
	crashRounds  = 20
	crashWorkers = 8
	crashJobs    = 1000
	// crashChildEnv carries "store dir|ack file|round" to the child.
	crashChildEnv = "TELHA_JOBS_CRASH_CHILD"
	// crashRoundTime is how far each round moves the clock on: more than
	// the lease, so that a round's reap returns every lease of the rounds
	// before it.
	crashRoundTime = 2 * time.Hour
)

// crashOptions are the queue options of round r: durable state changes,
// leases of an hour on a clock moved on by r rounds, and enough attempts
// that a job killed in several rounds is never dead.
func crashOptions(round int) jobs.Options {
	offset := time.Duration(round) * crashRoundTime
	return jobs.Options{
		Clock:         func() time.Time { return time.Now().Add(offset) },
		LeaseDuration: time.Hour,
		MaxAttempts:   1000,
		BackoffBase:   time.Millisecond,
		BackoffMax:    2 * time.Millisecond,
		Durable:       true,
	}
}

// crashQueues returns the queues the workers share: a tenant's and the
// system queue, so that each reap crosses scopes.
func crashQueues(t testing.TB, s *jobs.Store) []*jobs.Queue {
	return []*jobs.Queue{tenantQueue(t, s, 1), s.System()}
}

// TestJobsCrashChild is the child's body; it runs only when re-executed by
// TestJobsSurviveKill.
func TestJobsCrashChild(t *testing.T) {
	spec, ok := os.LookupEnv(crashChildEnv)
	if !ok {
		t.Skip("runs only as the child process of TestJobsSurviveKill")
	}
	parts := strings.Split(spec, "|")
	round, err := strconv.Atoi(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	acks, err := os.OpenFile(parts[1], os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	e := storagetest.OpenRocksDB(t, parts[0])
	s, err := jobs.NewStore(e, crashOptions(round))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reap(); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("ready\n")
	var mu sync.Mutex
	ack := func(id uuid.UUID) {
		mu.Lock()
		defer mu.Unlock()
		if _, err := acks.WriteString(id.String() + "\n"); err != nil {
			panic(err)
		}
		if err := acks.Sync(); err != nil {
			panic(err)
		}
	}
	queues := crashQueues(t, s)
	for w := range crashWorkers {
		go func() {
			q := queues[w%len(queues)]
			for {
				if _, err := crashWork(q, fmt.Sprintf("r%d-w%d", round, w), ack); err != nil {
					fmt.Fprintf(os.Stderr, "worker %d: %v\n", w, err)
					os.Exit(3)
				}
			}
		}()
	}
	select {} // until killed
}

// crashWork claims one job of q and fails its first attempt (every fifth
// job) or completes it, acknowledging each completion once Complete has
// returned. It reports idle when no job was ready.
func crashWork(q *jobs.Queue, owner string, ack func(uuid.UUID)) (idle bool, err error) {
	l, err := q.Claim(owner)
	if errors.Is(err, jobs.ErrNoJob) {
		time.Sleep(time.Millisecond)
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if l.Attempts == 1 && everyFifth(l.ID) {
		_, err := q.Fail(l, errors.New("first attempt fails"))
		return false, err
	}
	if err := q.Complete(l); err != nil {
		return false, err
	}
	ack(l.ID)
	return false, nil
}

// TestJobsSurviveKill kills a process of eight workers with SIGKILL at
// random moments over 20 rounds, and after each kill cuts the store's
// write-ahead logs back to their last sync, as a power loss would
// (rocksdbtest): the workers' durable writes overlap and share syncs, and
// each operation must return only once its own write is synced. After each
// cut the store reopens with every job in exactly one state and every
// acknowledged completion present; at the end a reap and a last run
// complete every job exactly once, and no completion is acknowledged twice.
func TestJobsSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes for several seconds")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	dir := filepath.Join(t.TempDir(), "store")
	ackFile := filepath.Join(t.TempDir(), "acks")

	all := enqueueCrashJobs(t, dir)
	pl := rocksdbtest.New(t, dir)
	for round := range crashRounds {
		c := startCrashChild(t, dir, ackFile, round, pl.Arm(t))
		time.Sleep(time.Duration(rng.Int64N(int64(150 * time.Millisecond))))
		if err := c.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := c.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
			t.Fatalf("round %d: child ended with %v before it was killed", round, err)
		}
		dropped, syncs := pl.Cut(t)
		acked := readCrashAcks(t, ackFile)
		completed := checkCrashStates(t, dir, all)
		for id := range acked {
			if !completed[id] {
				t.Fatalf("round %d: acknowledged completion of %s is lost", round, id)
			}
		}
		t.Logf("round %d: %d completions acknowledged, %d jobs completed, %d log syncs, %d unsynced bytes dropped", round, len(acked), len(completed), syncs, dropped)
	}

	// Reopen, reap, and finish the work in this process.
	e := storagetest.OpenRocksDB(t, dir)
	defer e.Close()
	s, err := jobs.NewStore(e, crashOptions(crashRounds))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reap(); err != nil {
		t.Fatal(err)
	}
	acked := readCrashAcks(t, ackFile)
	var mu sync.Mutex
	finished := 0
	ack := func(id uuid.UUID) {
		mu.Lock()
		defer mu.Unlock()
		if acked[id] {
			t.Errorf("job %s completed again after its completion was acknowledged", id)
		}
		acked[id] = true
		finished++
	}
	var wg sync.WaitGroup
	queues := crashQueues(t, s)
	for w := range crashWorkers {
		q := queues[w%len(queues)]
		wg.Go(func() {
			for {
				idle, err := crashWork(q, fmt.Sprintf("final-%d", w), ack)
				if err != nil {
					t.Error(err)
					return
				}
				if !idle {
					continue
				}
				// Failed jobs wait out a backoff of milliseconds.
				if js, err := q.List(jobs.Failed); err != nil || len(js) == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	t.Logf("after %d kills: %d jobs completed by the last run", crashRounds, finished)
	for _, q := range crashQueues(t, s) {
		for _, st := range []jobs.State{jobs.Queued, jobs.Leased, jobs.Failed, jobs.Dead} {
			if js, err := q.List(st); err != nil || len(js) != 0 {
				t.Fatalf("%s: %d jobs left %s (%v)", q, len(js), st, err)
			}
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if completed := checkCrashStates(t, dir, all); len(completed) != len(all) {
		t.Fatalf("%d of %d jobs completed", len(completed), len(all))
	}
}

// enqueueCrashJobs creates the store with crashJobs jobs over the crash
// queues and returns their ids.
func enqueueCrashJobs(t *testing.T, dir string) map[uuid.UUID]bool {
	t.Helper()
	e := storagetest.OpenRocksDB(t, dir)
	defer e.Close()
	o := crashOptions(0)
	o.Durable = false
	s, err := jobs.NewStore(e, o)
	if err != nil {
		t.Fatal(err)
	}
	all := make(map[uuid.UUID]bool, crashJobs)
	queues := crashQueues(t, s)
	for i := range crashJobs {
		j := mustEnqueue(t, queues[i%len(queues)], strconv.Itoa(i), jobs.EnqueueOptions{Priority: jobs.Priority(i % 3 * 64)})
		all[j.ID] = true
	}
	return all
}

// startCrashChild starts the child of round, with env added to its
// environment.
func startCrashChild(t *testing.T, dir, ackFile string, round int, env []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestJobsCrashChild$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), env...), fmt.Sprintf("%s=%s|%s|%d", crashChildEnv, dir, ackFile, round))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if lines.Text() == "ready" {
			return cmd
		}
	}
	_ = cmd.Wait()
	t.Fatalf("round %d: the child ended before it was ready", round)
	return nil
}

// readCrashAcks reads the acknowledged completions and fails on one
// acknowledged twice. A last line cut by the kill is no acknowledgement.
func readCrashAcks(t *testing.T, path string) map[uuid.UUID]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[uuid.UUID]bool{}
	}
	if err != nil {
		t.Fatal(err)
	}
	acked := map[uuid.UUID]bool{}
	lines := strings.SplitAfter(string(data), "\n")
	for _, line := range lines {
		text, whole := strings.CutSuffix(line, "\n")
		if !whole {
			continue
		}
		id, err := uuid.Parse(text)
		if err != nil {
			t.Fatalf("bad acknowledgement %q", line)
		}
		if acked[id] {
			t.Fatalf("job %s: completion acknowledged twice", id)
		}
		acked[id] = true
	}
	return acked
}

// checkCrashStates reopens the store and checks that every job is in
// exactly one state and no other job exists; it returns the completed ones.
func checkCrashStates(t *testing.T, dir string, all map[uuid.UUID]bool) map[uuid.UUID]bool {
	t.Helper()
	e := storagetest.OpenRocksDB(t, dir)
	defer e.Close()
	s, err := jobs.NewStore(e, jobs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	state := make(map[uuid.UUID]jobs.State, len(all))
	completed := map[uuid.UUID]bool{}
	for _, q := range crashQueues(t, s) {
		for _, st := range []jobs.State{jobs.Queued, jobs.Leased, jobs.Completed, jobs.Failed, jobs.Dead} {
			js, err := q.List(st)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range js {
				if prev, dup := state[j.ID]; dup {
					t.Fatalf("job %s is both %s and %s", j.ID, prev, st)
				}
				if !all[j.ID] {
					t.Fatalf("job %s was never enqueued", j.ID)
				}
				state[j.ID] = st
				if st == jobs.Completed {
					completed[j.ID] = true
				}
			}
		}
	}
	if len(state) != len(all) {
		t.Fatalf("%d jobs in the store, want %d", len(state), len(all))
	}
	return completed
}
