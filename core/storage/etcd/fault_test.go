package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/cluster"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
)

// faultTimeout is the engine's deadline in the fault tests: long enough
// for a leader election after a kill, short enough that a quorum loss is
// reported quickly.
const faultTimeout = 5 * time.Second

// faults is a cluster of three member processes, and an engine on it.
type faults struct {
	c   *cluster.Cluster
	cfg etcd.Config
	e   *etcd.Engine
	s   storage.TenantScope
}

// TestFaults kills members of a real cluster with SIGKILL, as a crash or a
// power cut would, while an engine works on it. Every write the engine
// acknowledged must survive; what the cluster cannot do must fail with a
// typed error within the engine's deadline, never hang.
func TestFaults(t *testing.T) {
	c := etcdtest.ProcessCluster(t, cluster.Config{Members: 3})
	cfg := etcdtest.EngineConfig(c, "faults/")
	cfg.Timeout = faultTimeout
	f := &faults{c: c, cfg: cfg, e: openConfig(t, cfg), s: storagetest.TenantScope(t)}
	t.Run("KillOneMemberDuringWrites", f.killOneDuringWrites)
	t.Run("KillLeaderDuringTransaction", f.killDuringTransaction)
	t.Run("SnapshotAcrossLeaderChange", f.snapshotAcrossLeaderChange)
	t.Run("QuorumLoss", f.quorumLoss)
}

// killLeader kills the member that leads now and returns its index.
func (f *faults) killLeader(t *testing.T) int {
	t.Helper()
	var leader int
	err := retry(func() (err error) { leader, err = f.c.Leader(context.Background()); return err })
	if err != nil {
		t.Fatal(err)
	}
	if err := f.c.Kill(leader); err != nil {
		t.Fatal(err)
	}
	return leader
}

// retry calls op until it succeeds, for up to three engine timeouts: the
// time a cluster takes to elect a leader after a loss, on a slow machine.
func retry(op func() error) error {
	deadline := time.Now().Add(3 * faultTimeout)
	for {
		err := op()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ack is one acknowledged write of a stream.
type ack struct {
	key   storage.Key
	value []byte
}

// writeStream puts new keys one after another until stop is closed, and
// returns the writes the engine acknowledged, counting them in acked as it
// goes. A write may fail only with ErrUnavailable, whose outcome is
// unknown.
func (f *faults) writeStream(t *testing.T, node uuid.UUID, stop <-chan struct{}, acked *atomic.Int64) []ack {
	var acks []ack
	for i := 0; ; i++ {
		select {
		case <-stop:
			return acks
		default:
		}
		k, v := nodeKey(f.s, node, i), fmt.Appendf(nil, "write %d", i)
		switch err := f.e.Put(k, v); {
		case err == nil:
			acks = append(acks, ack{k, v})
			acked.Add(1)
		case !errors.Is(err, etcd.ErrUnavailable):
			t.Errorf("write %d: %v, want nil or ErrUnavailable", i, err)
			return acks
		}
	}
}

// checkAcked fails unless every acknowledged write reads back, through r.
func checkAcked(t *testing.T, what string, r storage.Reader, acks []ack) {
	t.Helper()
	for _, a := range acks {
		v, err := r.Get(a.key)
		if err != nil || string(v) != string(a.value) {
			t.Fatalf("%s: acknowledged %s reads %q, %v", what, a.key, v, err)
		}
	}
}

// killOneDuringWrites kills the leader during a stream of writes: the
// stream goes on through the two survivors, every acknowledged write reads
// back, and the killed member, restarted, catches up with all of them.
func (f *faults) killOneDuringWrites(t *testing.T) {
	stop := make(chan struct{})
	var acks []ack
	var wg sync.WaitGroup
	var afterKill atomic.Int64
	wg.Go(func() { acks = f.writeStream(t, uuid.New(), stop, &afterKill) })
	time.Sleep(500 * time.Millisecond)
	killed := f.killLeader(t)
	afterKill.Store(0)
	// Writes go on until a hundred are acknowledged after the kill, or the
	// time of a few elections passes.
	deadline := time.Now().Add(3 * faultTimeout)
	for afterKill.Load() < 100 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	after := afterKill.Load()
	t.Logf("%d writes acknowledged, %d of them after the kill", len(acks), after)
	if after == 0 {
		t.Fatal("no write was acknowledged after one member of three was killed")
	}
	checkAcked(t, "after the kill", f.e, acks)
	if err := f.c.Restart(killed); err != nil {
		t.Fatal(err)
	}
	// Reads through the restarted member alone: a linearizable read there
	// waits until it has applied everything committed.
	only := f.cfg
	only.Endpoints = []string{f.c.Endpoints()[killed]}
	checkAcked(t, "through the restarted member", openConfig(t, only), acks)
}

// killDuringTransaction kills the leader while a large batch is in flight,
// at random moments: afterwards the batch is wholly present or wholly
// absent, and present if it was acknowledged.
func (f *faults) killDuringTransaction(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3 {
		node := uuid.New()
		var b storage.Batch
		for v := range 1000 {
			b.Put(nodeKey(f.s, node, v), fmt.Appendf(nil, "round %d", round))
		}
		result := make(chan error, 1)
		go func() { result <- f.e.Write(&b) }()
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		killed := f.killLeader(t)
		err := <-result
		if err != nil && !errors.Is(err, etcd.ErrUnavailable) {
			t.Fatalf("round %d: the batch failed with %v, want nil or ErrUnavailable", round, err)
		}
		if err := f.c.Restart(killed); err != nil {
			t.Fatal(err)
		}
		var rows []storage.KV
		if err := retry(func() (err error) {
			rows, err = storagetest.ScanLimit(f.e, storage.NodeHistory(f.s, node), 0)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: write returned %v; %d of 1000 rows present", round, err, len(rows))
		if len(rows) != 0 && len(rows) != 1000 || err == nil && len(rows) != 1000 {
			t.Fatalf("round %d: the batch is partly applied: %d of 1000 rows, write returned %v", round, len(rows), err)
		}
	}
}

// snapshotAcrossLeaderChange reads a snapshot before and after the leader
// that served its revision is killed, with writes in between: it reads the
// same rows, and so does a checkpoint of the new leader's cluster hold the
// writes.
func (f *faults) snapshotAcrossLeaderChange(t *testing.T) {
	r := putNodes(t, f.e, f.s, 20)
	snap, err := f.e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	want := mustRows(t, snap, r)
	if err := f.e.DeleteRange(r); err != nil {
		t.Fatal(err)
	}
	killed := f.killLeader(t)
	var got []storage.KV
	if err := retry(func() (err error) { got, err = storagetest.ScanLimit(snap, r, 0); return err }); err != nil {
		t.Fatal(err)
	}
	if !sameRows(got, want) {
		t.Errorf("after the leader change the snapshot reads %d rows, want %d", len(got), len(want))
	}
	if rows := mustRows(t, f.e, r); len(rows) != 0 {
		t.Errorf("the engine reads %d rows of a deleted range", len(rows))
	}
	dir := filepath.Join(t.TempDir(), "checkpoint")
	if err := f.e.Checkpoint(dir); err != nil {
		t.Fatalf("checkpoint with one member down: %v", err)
	}
	if err := f.c.Restart(killed); err != nil {
		t.Fatal(err)
	}
}

// quorumLoss kills two members of three: every call fails with
// ErrUnavailable within its deadline. With the two restarted, the engine
// serves again and every acknowledged write is there.
func (f *faults) quorumLoss(t *testing.T) {
	r := putNodes(t, f.e, f.s, 5)
	acked := mustRows(t, f.e, r)
	// An engine with a short deadline, so that the calls below fail fast.
	short := f.cfg
	short.Timeout = time.Second
	e := openConfig(t, short)
	for _, i := range []int{1, 2} {
		if err := f.c.Kill(i); err != nil {
			t.Fatal(err)
		}
	}
	k := nodeKey(f.s, uuid.New(), 0)
	var b storage.Batch
	b.Put(k, []byte("lost?"))
	calls := []struct {
		name string
		call func() error
	}{
		{"Put", func() error { return e.Put(k, []byte("x")) }},
		{"Delete", func() error { return e.Delete(k) }},
		{"Write", func() error { return e.Write(&b) }},
		{"DeleteRange", func() error { return e.DeleteRange(r) }},
		{"Get", func() error { _, err := e.Get(k); return err }},
		{"Scan", func() error { _, err := storagetest.ScanLimit(e, r, 0); return err }},
		{"Snapshot", func() error { _, err := e.Snapshot(); return err }},
		{"Checkpoint", func() error { return e.Checkpoint(filepath.Join(t.TempDir(), "checkpoint")) }},
		{"Open", func() error { _, err := etcd.Open(short); return err }},
	}
	for _, c := range calls {
		start := time.Now()
		err := c.call()
		elapsed := time.Since(start)
		wantErr(t, c.name+" without a quorum", err, etcd.ErrUnavailable)
		// A checkpoint tries each member in turn, each under the deadline;
		// the margin is for a loaded machine.
		if limit := time.Duration(len(short.Endpoints))*short.Timeout + 2*time.Second; elapsed > limit {
			t.Errorf("%s without a quorum took %v, over %v", c.name, elapsed, limit)
		}
	}
	for _, i := range []int{1, 2} {
		if err := f.c.Restart(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := retry(func() error { return f.e.Put(k, []byte("after")) }); err != nil {
		t.Fatalf("the engine does not write after the quorum came back: %v", err)
	}
	if rows := mustRows(t, f.e, r); !sameRows(rows, acked) {
		t.Errorf("after the quorum came back: %d rows, want the %d acknowledged", len(rows), len(acked))
	}
}
