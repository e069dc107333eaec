package temporal_test

import (
	"cmp"
	"fmt"
	"os"
	"slices"
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

// temporalChild serves a Store on the engine and tenant of args
// (etcdtest.ChildArgs), over a wall clock that stands still where the
// parent puts it:
//
//	wall T         the wall clock reads T (microseconds) from now on
//	assert ID V    asserts node ID from valid time V on, labelled with
//	               the child's pid; answers the transaction time
//	assert-many ID V N
//	               asserts it N times; answers the transaction times
//	wipe           wipes the tenant (storage.WipeTenant)
func temporalChild(args []string) error {
	e, scope, _, err := etcdtest.OpenChild(args)
	if err != nil {
		return err
	}
	defer e.Close()
	var wall atomic.Int64
	s := temporal.Open(e, temporal.Options{Clock: temporal.NewClock(func() storage.Timestamp { return storage.Timestamp(wall.Load()) })})
	label := "p" + strconv.Itoa(os.Getpid())
	var do func(cmd []string) (string, error)
	do = func(cmd []string) (string, error) {
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
		case len(cmd) == 1 && cmd[0] == "wipe":
			return "", storage.WipeTenant(e, scope)
		case len(cmd) == 4 && cmd[0] == "assert-many":
			var txs []string
			n, err := strconv.Atoi(cmd[3])
			for range n {
				if err != nil {
					break
				}
				var tx string
				tx, err = do([]string{"assert", cmd[1], cmd[2]})
				txs = append(txs, tx)
			}
			return strings.Join(txs, " "), err
		}
		return "", fmt.Errorf("unknown command %q", cmd)
	}
	return storagetest.ServeCommands(do)
}

// twoProcesses starts two children on one new namespace and tenant.
func twoProcesses(t *testing.T) (etcd.Config, storage.TenantScope, *storagetest.Child, *storagetest.Child) {
	t.Helper()
	cfg := etcdtest.Config(t)
	scope := storagetest.TenantScope(t)
	a := storagetest.StartChild(t, "temporal", etcdtest.ChildArgs(cfg, scope)...)
	b := storagetest.StartChild(t, "temporal", etcdtest.ChildArgs(cfg, scope)...)
	return cfg, scope, a, b
}

// wallAt is a wall clock reading d microseconds after the tests' epoch.
func wallAt(d int64) string {
	return strconv.FormatInt(time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC).UnixMicro()+d, 10)
}

// txOf parses a transaction time a child answered.
func txOf(t *testing.T, s string) int64 {
	t.Helper()
	tx, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("transaction time %q: %v", s, err)
	}
	return tx
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
// knows nothing of the first's time but what the store's clock says.
//
// With the clock of one process (before the cluster clock): both wall
// clocks read the same microsecond and both writes got it; they built one
// key, and the second replaced the first without an error. With the second
// wall clock behind the first, the write that committed later carried the
// earlier time. With the tenant's clock in the store, each write gets a
// time after every time committed before it: both versions are kept, and
// commit order is transaction-time order whatever the wall clocks say.
func TestTwoProcessesOneValidTime(t *testing.T) {
	cfg, scope, a, b := twoProcesses(t)
	const valid = "1000"
	ts := wallAt

	// b writes once, so its clock is seeded from the store before a writes.
	call(t, b, "wall", ts(0))
	call(t, b, "assert", uuid.NewString(), valid)

	// One node, one valid time, one microsecond on both wall clocks.
	node := uuid.New()
	call(t, a, "wall", ts(10))
	txA := txOf(t, call(t, a, "assert", node.String(), valid))
	call(t, b, "wall", ts(10))
	txB := txOf(t, call(t, b, "assert", node.String(), valid))
	if txB <= txA {
		t.Errorf("one microsecond: the second commit got tx %d, the first %d", txB, txA)
	}
	if hist := readHistory(t, cfg, scope, node); len(hist) != 2 {
		t.Errorf("one microsecond: %d versions stored, want both", len(hist))
	}

	// Wall clocks apart: the later commit still gets the later time.
	other := uuid.New()
	call(t, a, "wall", ts(30))
	txA = txOf(t, call(t, a, "assert", other.String(), valid))
	call(t, b, "wall", ts(20))
	txB = txOf(t, call(t, b, "assert", other.String(), valid))
	if txB <= txA {
		t.Errorf("clocks apart: the later commit got tx %d, the earlier %d", txB, txA)
	}
}

// Two processes assert one node at one valid time over and over, at
// once, with wall clocks that stand still. Every write is acknowledged,
// every version is kept with a time of its own, and the versions form one
// chain, each closed at the time of the next: no write superseded a state
// that another process had already superseded (the clock's condition
// made it read again).
func TestTwoProcessesRacing(t *testing.T) {
	const writes = 40
	cfg := etcdtest.Config(t)
	scope := storagetest.TenantScope(t)
	node := uuid.New()
	var txs [2][]string
	done := make(chan error, 2)
	for i := range txs {
		c := storagetest.StartChild(t, "temporal", etcdtest.ChildArgs(cfg, scope)...)
		call(t, c, "wall", wallAt(0))
		go func() {
			out, err := c.Call(childTimeout, "assert-many", node.String(), "1000", strconv.Itoa(writes))
			txs[i] = strings.Fields(out)
			done <- err
		}()
	}
	for range txs {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	hist := readHistory(t, cfg, scope, node)
	if len(hist) != 2*writes {
		t.Fatalf("%d versions stored of %d acknowledged", len(hist), 2*writes)
	}
	slices.SortFunc(hist, func(a, b temporal.Version) int { return cmp.Compare(a.TxStart, b.TxStart) })
	for i := range hist {
		switch {
		case i > 0 && hist[i].TxStart == hist[i-1].TxStart:
			t.Fatalf("two versions at tx %s", hist[i].TxStart)
		case i+1 < len(hist) && hist[i].TxEnd != hist[i+1].TxStart:
			t.Fatalf("version %d (tx %s) closed at %s, but the next version is at %s", i, hist[i].TxStart, hist[i].TxEnd, hist[i+1].TxStart)
		case i+1 == len(hist) && hist[i].TxEnd != temporal.Forever:
			t.Fatalf("the last version is closed at %s", hist[i].TxEnd)
		}
	}
	for i, acked := range txs {
		if len(acked) != writes {
			t.Errorf("child %d acknowledged %d writes", i, len(acked))
		}
	}
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

// A process that knows a tenant (its clock, its generation) writes it
// again after another process wiped it: the write, conditional on the
// generation it knew, is refused, read again and made over the wiped
// tenant, with a time after every earlier one.
func TestWriteAfterAnotherProcessWiped(t *testing.T) {
	cfg, scope, a, b := twoProcesses(t)
	call(t, a, "wall", wallAt(0))
	call(t, b, "wall", wallAt(0))
	node := uuid.New()
	first := txOf(t, call(t, a, "assert", node.String(), "1000"))
	call(t, b, "wipe")
	second := txOf(t, call(t, a, "assert", node.String(), "1000"))
	if second <= first {
		t.Errorf("after the wipe: tx %d, before it %d", second, first)
	}
	if hist := readHistory(t, cfg, scope, node); len(hist) != 1 || hist[0].TxEnd != temporal.Forever {
		t.Errorf("after the wipe and one write: %d versions (%+v), want one open version", len(hist), hist)
	}
}
