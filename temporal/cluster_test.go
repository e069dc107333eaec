package temporal_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

// Several processes on one etcd namespace: each a child process of this
// test binary (storagetest.StartChild) with a Store of its own, as the
// replicas of a deployment have, and a wall clock the test sets.

func init() { storagetest.RegisterChild("temporal", temporalChild) }

// childTimeout bounds one command of a child.
const childTimeout = time.Minute

// temporalChild serves a Store on the engine of args (etcdtest.ChildArgs)
// for the tenant args[1] (TENANT:ORG), over a wall clock that stands still
// where the parent puts it:
//
//	wall T         the wall clock reads T (microseconds) from now on
//	assert ID V    asserts node ID from valid time V on, labelled with
//	               the child's pid; answers the transaction time
func temporalChild(args []string) error {
	e, rest, err := etcdtest.OpenChild(args)
	if err != nil {
		return err
	}
	defer e.Close()
	scope, err := parseScope(rest[0])
	if err != nil {
		return err
	}
	var wall atomic.Int64
	s := temporal.Open(e, temporal.Options{Clock: temporal.NewClock(func() storage.Timestamp { return storage.Timestamp(wall.Load()) })})
	label := "p" + strconv.Itoa(os.Getpid())
	return storagetest.ServeCommands(func(cmd []string) (string, error) {
		switch {
		case len(cmd) == 2 && cmd[0] == "wall":
			t, err := strconv.ParseInt(cmd[1], 10, 64)
			wall.Store(t)
			return "", err
		case len(cmd) == 3 && cmd[0] == "assert":
			id, err := uuid.Parse(cmd[1])
			if err != nil {
				return "", err
			}
			v, err := strconv.ParseInt(cmd[2], 10, 64)
			if err != nil {
				return "", err
			}
			tx, err := s.AssertNode(scope, temporal.NodeFact{ID: id, Valid: temporal.Interval{Start: storage.Timestamp(v), End: temporal.Forever}, Labels: []string{label}})
			return strconv.FormatInt(int64(tx), 10), err
		}
		return "", fmt.Errorf("unknown command %q", cmd)
	})
}

func parseScope(s string) (storage.TenantScope, error) {
	tenant, org, _ := strings.Cut(s, ":")
	t, err := uuid.Parse(tenant)
	if err != nil {
		return storage.TenantScope{}, err
	}
	o, err := uuid.Parse(org)
	if err != nil {
		return storage.TenantScope{}, err
	}
	return storage.NewTenantScope(t, o)
}

func formatScope(s storage.TenantScope) string {
	return s.Tenant().String() + ":" + s.Organization().String()
}

// call runs one command of c, failing the test on an error.
func call(t *testing.T, c *storagetest.Child, fields ...string) string {
	t.Helper()
	out, err := c.Call(childTimeout, fields...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Two processes assert one node at one valid time, each in its own
// microsecond by its own wall clock, the second process after the first
// has returned. The second process's clock last read the store's times
// before the first wrote (it wrote once before, which seeded it), so it
// knows nothing of the first's time.
//
// With the clock of one process, as today: both wall clocks read the same
// microsecond and both writes get it. They build one key, and the second
// replaces the first without an error: one of two acknowledged versions
// is lost. And with the second wall clock behind the first, the write that
// committed later carries the earlier time, so an as-of read between the
// two times answers differently after the second commit than before it.
func TestTwoProcessesOneValidTime(t *testing.T) {
	cfg := etcdtest.Config(t)
	scope := storagetest.TenantScope(t)
	a := storagetest.StartChild(t, "temporal", append(etcdtest.ChildArgs(cfg), formatScope(scope))...)
	b := storagetest.StartChild(t, "temporal", append(etcdtest.ChildArgs(cfg), formatScope(scope))...)
	const valid = "1000"
	t0 := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC).UnixMicro()
	ts := func(d int64) string { return strconv.FormatInt(t0+d, 10) }

	// b writes once, so its clock is seeded from the store before a writes.
	call(t, b, "wall", ts(0))
	call(t, b, "assert", uuid.NewString(), valid)

	// One node, one valid time, one microsecond on both wall clocks.
	node := uuid.New()
	call(t, a, "wall", ts(10))
	txA := call(t, a, "assert", node.String(), valid)
	call(t, b, "wall", ts(10))
	txB := call(t, b, "assert", node.String(), valid)
	hist := readHistory(t, cfg, scope, node)
	if txA != txB || len(hist) != 1 {
		t.Fatalf("two processes in one microsecond: tx %s and %s, %d versions stored", txA, txB, len(hist))
	}
	t.Logf("today: both writes got tx %s; %d of 2 acknowledged versions stored (the second replaced the first)", txA, len(hist))

	// Wall clocks apart: the later commit gets the earlier time.
	other := uuid.New()
	call(t, a, "wall", ts(30))
	txA = call(t, a, "assert", other.String(), valid)
	call(t, b, "wall", ts(20))
	txB = call(t, b, "assert", other.String(), valid)
	if txB >= txA {
		t.Fatalf("clocks apart: tx %s, then %s", txA, txB)
	}
	t.Logf("today: the later commit carries tx %s, before the earlier commit's %s", txB, txA)
}

// readHistory reads the versions of node through an engine of the test's.
func readHistory(t *testing.T, cfg etcd.Config, scope storage.TenantScope, node uuid.UUID) []temporal.Version {
	t.Helper()
	e, err := etcd.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	hist, err := temporal.Open(e, temporal.Options{}).NodeHistory(scope, node)
	if err != nil {
		t.Fatal(err)
	}
	return hist
}
