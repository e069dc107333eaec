package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/cluster"
	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
	"telha.dev/temporal"
)

// memberCluster starts a cluster of three member processes of this test
// binary (the hidden member subcommand, as `telha cluster` runs them) and
// stops it when the test ends.
func memberCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.Start(cluster.Config{Dir: filepath.Join(t.TempDir(), "cluster"), Members: 3},
		cluster.Processes(func(args []string) *exec.Cmd {
			return exec.Command(os.Args[0], append([]string{memberCommand}, args...)...)
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop the cluster: %v", err)
		}
	})
	return c
}

// killFollower kills with SIGKILL a member that does not lead, and returns
// its index.
func killFollower(t *testing.T, c *cluster.Cluster) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	leader, err := c.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	victim := (leader + 1) % 3
	if err := c.Kill(victim); err != nil {
		t.Fatal(err)
	}
	return victim
}

// pendingEntries opens the namespace ns of the cluster and returns the
// members each ledger entry names pending.
func pendingEntries(t *testing.T, c *cluster.Cluster, ns string) [][]string {
	t.Helper()
	e, err := etcd.Open(etcd.Config{Endpoints: c.Endpoints(), Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	entries, err := lifecycle.LedgerEntries(e)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, en := range entries {
		if en.Verified.IsZero() {
			t.Errorf("ledger entry %s is not verified", en.ID)
		}
		out = append(out, en.Pending)
	}
	return out
}

// TestEtcdEraseWithAMemberDown kills one member of a three-member cluster
// with SIGKILL and erases a tenant through the library, then runs `telha
// demo -etcd` (whose redaction step compacts): with a quorum both
// complete, verified through it, and the ledger names the member down as
// pending; the demo says so and succeeds. Once the member is back, the
// next opening of the engine (lifecycle.Resume, and the demo run again)
// defragments it and clears every entry.
func TestEtcdEraseWithAMemberDown(t *testing.T) {
	c := memberCluster(t)
	cfg := etcd.Config{Endpoints: c.Endpoints(), Namespace: "erase/", Timeout: 5 * time.Second}
	e, err := etcd.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	scope := storagetest.TenantScope(t)
	if _, err := lifecycle.Provision(e, scope, "doomed"); err != nil {
		t.Fatal(err)
	}
	if _, err := temporal.Open(e, temporal.Options{}).AssertNode(scope, temporal.NodeFact{ID: storagetest.ID(1),
		Valid: temporal.Interval{Start: 0, End: temporal.Forever}, Props: temporal.Properties{"name": temporal.String("doomed")}}); err != nil {
		t.Fatal(err)
	}
	victim := killFollower(t, c)
	member := memberID(t, c, victim)

	er, err := lifecycle.EraseTenant(e, scope, lifecycle.EraseOptions{})
	if err != nil {
		t.Fatalf("erase with one member of three down: %v", err)
	}
	if !slices.Equal(er.Entry.Pending, []string{member}) || er.Entry.Verified.IsZero() {
		t.Errorf("the erasure's entry is verified at %v with members %v pending; want %s", er.Entry.Verified, er.Entry.Pending, member)
	}
	if counts, err := lifecycle.Verify(e, scope); err != nil || countRows(counts) != 0 {
		t.Errorf("through the quorum, the erased tenant holds %d rows (%v)", countRows(counts), err)
	}
	if got := pendingOf("tenant erase", er); exitStatus(got) != exitPending {
		t.Errorf("the CLI's status for it: %v, exit %d; want %d", got, exitStatus(got), exitPending)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := telha(t, "demo", "-etcd", strings.Join(c.Endpoints(), ","))
	if code != exitOK || !strings.Contains(stdout, "have not rewritten their files yet") {
		t.Fatalf("demo -etcd with one member down: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	for i, p := range pendingEntries(t, c, demoNamespace) {
		if !slices.Equal(p, []string{member}) {
			t.Errorf("demo ledger entry %d names %v pending, want %s", i, p, member)
		}
	}

	if err := c.Restart(victim); err != nil {
		t.Fatal(err)
	}
	e, err = etcd.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lifecycle.Resume(e, lifecycle.EraseOptions{}); err != nil {
		t.Fatalf("resume once the member is back: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for i, p := range pendingEntries(t, c, "erase/") {
		if len(p) != 0 {
			t.Errorf("after Resume, entry %d still names %v pending", i, p)
		}
	}
	if code, _, stderr := telha(t, "demo", "-etcd", strings.Join(c.Endpoints(), ",")); code != exitOK {
		t.Fatalf("demo -etcd with every member back: exit %d, %q", code, stderr)
	}
	for i, p := range pendingEntries(t, c, demoNamespace) {
		if len(p) != 0 {
			t.Errorf("after the demo ran again, demo entry %d still names %v pending", i, p)
		}
	}
}

// memberID returns the id of member i as the engine names it, in hex.
func memberID(t *testing.T, c *cluster.Cluster, i int) string {
	t.Helper()
	ids, err := c.MemberIDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return ids[i]
}

func countRows(counts []lifecycle.FamilyCount) (n uint64) {
	for _, c := range counts {
		n += c.Rows
	}
	return n
}
