package replicas

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/cluster"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
	"telha.dev/lifecycle"
	"telha.dev/temporal"
)

// The histories: N replica processes x M clients each, for a few seconds,
// against a cluster of three member processes, one of which is killed
// with SIGKILL and restarted, again and again, during the run. Each client
// picks operations at random on a few shared objects: registers (a node
// of the tenant, written and read as of now), the jobs of the tenant's
// queue (claimed, then completed), and tenant names (provisioned under new
// scopes). `make test` runs a short check; `make linearize` the long one.
var (
	runs    = flag.Int("replicas.runs", 2, "histories to record and check, each with member kills")
	seconds = flag.Float64("replicas.seconds", 3, "length of each history")
)

// The shape of a history.
const (
	processes  = 3
	clients    = 4   // per process
	registers  = 4   // nodes written and read
	queuedJobs = 400 // jobs queued before a run
	names      = 8   // tenant names provisioned
)

// engineTimeout bounds every call of the replicas' engines: a call in
// flight to a member that is killed fails over, or fails, within it.
const engineTimeout = 10 * time.Second

// registerID is the node of register k.
func registerID(k int) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte("register-"+strconv.Itoa(k)))
}

// run records a history: args are the directory of the history files,
// the seconds it lasts, the clients, and the process's number. It answers
// the path of the file it wrote: the ops as JSON.
func (r *replica) run(args []string) (string, error) {
	if len(args) != 4 {
		return "", fmt.Errorf("run: %d arguments", len(args))
	}
	secs, err := strconv.ParseFloat(args[1], 64)
	if err != nil {
		return "", err
	}
	m, err := strconv.Atoi(args[2])
	if err != nil {
		return "", err
	}
	p, err := strconv.Atoi(args[3])
	if err != nil {
		return "", err
	}
	js, err := jobs.NewStore(r.e, jobs.Options{LeaseDuration: time.Hour})
	if err != nil {
		return "", err
	}
	q, err := js.Tenant(r.scope)
	if err != nil {
		return "", err
	}
	deadline := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var mu sync.Mutex
	var ops []op
	var wg sync.WaitGroup
	for c := range m {
		client := p*m + c
		rng := rand.New(rand.NewPCG(uint64(client), uint64(time.Now().UnixNano())))
		wg.Go(func() {
			var mine []op
			for i := 0; time.Now().Before(deadline); i++ {
				mine = append(mine, r.randomOp(q, rng, client, i)...)
			}
			mu.Lock()
			ops = append(ops, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	data, err := json.Marshal(ops)
	if err != nil {
		return "", err
	}
	path := filepath.Join(args[0], "history-"+args[3]+".json")
	return path, os.WriteFile(path, data, 0o644)
}

// randomOp runs one operation of client (two for a claim: the claim and
// its completion) and returns what the history records of it.
func (r *replica) randomOp(q *jobs.Queue, rng *rand.Rand, client, i int) []op {
	timed := func(o op, do func() (out string, err error, unknown bool)) (op, bool) {
		o.Client = client
		o.Call = time.Now().UnixNano()
		out, err, unknown := do()
		o.Return = time.Now().UnixNano()
		o.Out, o.Unknown = out, unknown
		return o, err == nil || unknown
	}
	switch x := rng.IntN(10); {
	case x < 4: // write a register
		k := rng.IntN(registers)
		v := fmt.Sprintf("c%d-%d", client, i)
		o, _ := timed(op{Kind: "write", Key: strconv.Itoa(k), In: v}, func() (string, error, bool) {
			_, err := r.graph.Store().AssertNode(r.scope, temporal.NodeFact{ID: registerID(k), Valid: temporal.Interval{Start: 0, End: temporal.Forever},
				Props: temporal.Properties{"v": temporal.String(v)}})
			return "", err, err != nil // any failure may have been applied
		})
		return []op{o}
	case x < 7: // read a register as of now
		k := rng.IntN(registers)
		o, ok := timed(op{Kind: "read", Key: strconv.Itoa(k)}, func() (string, error, bool) {
			v, err := r.graph.Store().CurrentNode(r.scope, registerID(k))
			if errors.Is(err, temporal.ErrNotFound) {
				return "", nil, false
			}
			if err != nil {
				return "", err, false
			}
			return v.Props["v"].Str, nil, false
		})
		if !ok {
			return nil
		}
		return []op{o}
	case x < 9: // claim a job, then complete it
		owner := "client-" + strconv.Itoa(client)
		var l jobs.Lease
		claim, ok := timed(op{Kind: "claim", In: owner}, func() (string, error, bool) {
			var err error
			l, err = q.Claim(owner)
			return "", err, false
		})
		if !ok {
			return nil // none ready, or unknown: nothing to check
		}
		claim.Key = l.ID.String()
		done, _ := timed(op{Kind: "complete", Key: l.ID.String(), In: owner}, func() (string, error, bool) {
			err := q.Complete(l)
			switch {
			case err == nil:
				return "ok", nil, false
			case errors.Is(err, jobs.ErrLeaseLost), errors.Is(err, jobs.ErrWrongOwner):
				return "lost", nil, false
			}
			return "", err, true
		})
		return []op{claim, done}
	default: // provision a new tenant under a name
		name := "name-" + strconv.Itoa(rng.IntN(names))
		scope, err := storage.NewTenantScope(uuid.New(), uuid.New())
		if err != nil {
			return nil
		}
		o, _ := timed(op{Kind: "provision", Key: name, In: storagetest.FormatScope(scope)}, func() (string, error, bool) {
			_, err := lifecycle.Provision(r.e, scope, name)
			switch {
			case err == nil:
				return "ok", nil, false
			case errors.Is(err, lifecycle.ErrNameTaken):
				return "taken", nil, false
			case errors.Is(err, lifecycle.ErrExists):
				return "exists", nil, false
			}
			return "", err, true
		})
		return []op{o}
	}
}

// history is one recorded history and what happened while it was made.
type history struct {
	ops   []op
	kills int
}

// TestLinearizable records *runs histories, each with member kills, and
// checks each with porcupine against the models: every history must be
// linearizable. It prints the number of runs and kills, and what the
// histories hold.
func TestLinearizable(t *testing.T) {
	c := etcdtest.ProcessCluster(t, cluster.Config{Members: etcdtest.Members})
	total, kills := 0, 0
	for run := range *runs {
		h := record(t, c, fmt.Sprintf("lin-%d/", run), false, true)
		kills += h.kills
		res, info := porcupine.CheckOperationsVerbose(model(steps), operations(h.ops), time.Minute)
		if res != porcupine.Ok {
			dumpHistory(t, run, h, info)
			t.Fatalf("run %d: the history of %s is %s (%s)", run, describe(h.ops), res, illegalObjects(h.ops))
		}
		total++
		t.Logf("run %d: %s, %d member kills: linearizable", run, describe(h.ops), h.kills)
	}
	fmt.Printf("linearizability: %d runs with %d member kills, every history linearizable\n", total, kills)
	if kills < total {
		t.Errorf("%d kills in %d runs: every run must kill a member", kills, total)
	}
}

// The check can fail: a model that says what the store does not (a
// register that keeps its first value), checked on a real history, finds
// it illegal; and a history made by replicas whose engine drops every
// batch's conditions (faultyEngine: the store as it was without
// conditional batches) is not linearizable: two processes claim one job,
// or provision one name.
func TestLinearizabilityCheckCanFail(t *testing.T) {
	c := etcdtest.ProcessCluster(t, cluster.Config{Members: etcdtest.Members})
	h := record(t, c, "broken-model/", false, false)
	broken := map[string]step{
		registerObject: func(state string, o op) (bool, string) {
			if o.Kind == "write" && state == "" {
				return true, o.In
			}
			return o.Kind == "write" || o.Out == state, state
		},
		jobObject: jobStep, nameObject: nameStep,
	}
	if res := porcupine.CheckOperations(model(broken), operations(h.ops)); res {
		t.Errorf("a register model that keeps its first value accepts a real history (%s)", describe(h.ops))
	}
	for attempt := range 3 {
		h := record(t, c, fmt.Sprintf("fault-%d/", attempt), true, false)
		if res := porcupine.CheckOperationsTimeout(model(steps), operations(h.ops), time.Minute); res == porcupine.Illegal {
			t.Logf("the injected fault is caught: %s is not linearizable; %s", describe(h.ops), illegalObjects(h.ops))
			return
		}
	}
	t.Error("three histories made without conditional batches all passed the check")
}

// record records one history on namespace ns of c: processes replicas
// (with the injected fault, faulty), each running its clients; with kill,
// a member is killed and restarted during the run, over and over.
func record(t *testing.T, c *cluster.Cluster, ns string, faulty, kill bool) history {
	t.Helper()
	cfg := etcdtest.EngineConfig(c, ns)
	cfg.Timeout = engineTimeout
	scope := storagetest.TenantScope(t)
	enqueueJobs(t, cfg, scope, queuedJobs)
	var extra []string
	if faulty {
		extra = []string{"fault"}
	}
	rs := start(t, cfg, scope, processes, extra...)
	dir := t.TempDir()
	stop := make(chan struct{})
	killed := make(chan int)
	if kill {
		go killMembers(t, c, time.Duration(*seconds*float64(time.Second)), stop, killed)
	} else {
		close(killed)
	}
	paths := callAll(t, rs, func(i int) []string {
		return []string{"run", dir, strconv.FormatFloat(*seconds, 'f', -1, 64), strconv.Itoa(clients), strconv.Itoa(i)}
	})
	close(stop)
	h := history{kills: <-killed}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var ops []op
		if err := json.Unmarshal(data, &ops); err != nil {
			t.Fatal(err)
		}
		h.ops = append(h.ops, ops...)
	}
	for _, r := range rs {
		if err := r.Close(callTimeout); err != nil {
			t.Error(err)
		}
	}
	return h
}

// killMembers kills a member (the leader every other time) with SIGKILL a
// few times per run, restarting each before the next, until stop; it sends
// the number of kills on killed, once every member runs again.
func killMembers(t *testing.T, c *cluster.Cluster, run time.Duration, stop <-chan struct{}, killed chan<- int) {
	n := 0
	defer func() { killed <- n }()
	pause := run / 5
	for {
		select {
		case <-stop:
			return
		case <-time.After(pause):
		}
		victim := n % etcdtest.Members
		if n%2 == 0 {
			if leader, err := leaderOf(c); err == nil {
				victim = leader
			}
		}
		if err := c.Kill(victim); err != nil {
			t.Errorf("kill member %d: %v", victim, err)
			return
		}
		n++
		time.Sleep(pause)
		if err := c.Restart(victim); err != nil {
			t.Errorf("restart member %d: %v", victim, err)
			return
		}
	}
}

// leaderOf returns the cluster's leader, asked within a few seconds.
func leaderOf(c *cluster.Cluster) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Leader(ctx)
}

// enqueueJobs queues n jobs in scope's queue through an engine of the
// test's.
func enqueueJobs(t *testing.T, cfg etcd.Config, scope storage.TenantScope, n int) {
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
	for i := range n {
		if _, err := q.Enqueue([]byte(strconv.Itoa(i)), jobs.EnqueueOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// illegalObjects says which kinds of objects of a history are not
// linearizable, each checked alone.
func illegalObjects(ops []op) string {
	var out []string
	for _, kind := range []string{registerObject, jobObject, nameObject} {
		var some []op
		for _, o := range ops {
			if object(o.Kind) == kind {
				some = append(some, o)
			}
		}
		res := porcupine.CheckOperationsTimeout(model(steps), operations(some), time.Minute)
		out = append(out, fmt.Sprintf("%ss: %s", kind, res))
	}
	return strings.Join(out, ", ")
}

// describe counts a history's operations by kind, and the unknown ones.
func describe(ops []op) string {
	kinds := make(map[string]int)
	unknown := 0
	for _, o := range ops {
		kinds[o.Kind]++
		if o.Unknown {
			unknown++
		}
	}
	return fmt.Sprintf("%d operations (%d writes, %d reads, %d claims, %d completions, %d provisionings; %d of unknown outcome)",
		len(ops), kinds["write"], kinds["read"], kinds["claim"], kinds["complete"], kinds["provision"], unknown)
}

// dumpHistory writes a failed history, and porcupine's visualization of
// it, beside the test's output, and says where.
func dumpHistory(t *testing.T, run int, h history, info porcupine.LinearizationInfo) {
	dir := os.Getenv("TELHA_REPLICAS_DUMP")
	if dir == "" {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("replicas-history-%d.html", run))
	if err := porcupine.VisualizePath(model(steps), info, path); err != nil {
		t.Logf("visualize: %v", err)
		return
	}
	t.Logf("the history's visualization: %s", path)
}
