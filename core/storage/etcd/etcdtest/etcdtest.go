// Package etcdtest gives tests etcd engines on a real three-member cluster
// on loopback: one cluster per test binary, started on first use and
// stopped when the tests end, and a fresh namespace of it per engine, so
// that tests are isolated from each other and cost no cluster start.
//
// It adds the kind "etcd" to the engine matrix of storagetest
// (storagetest.EachEngine) of every test binary that imports it, so a
// module's tests run on etcd too with one blank import beside the TestMain
// the matrix asks for:
//
//	import _ "telha.dev/core/storage/etcd/etcdtest"
//
//	func TestMain(m *testing.M) { os.Exit(storagetest.RunMain(m)) }
//
// A test binary that uses the package directly calls Main from TestMain
// (or Run, from a TestMain that has more to do):
//
//	func TestMain(m *testing.M) { etcdtest.Main(m) }
//
// and then, in any test, etcdtest.Engine(t) returns an empty engine that is
// closed and wiped when the test ends. ProcessCluster starts a cluster of
// its own whose members are child processes (this test binary, run again
// through Main), for tests that kill members.
package etcdtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/cluster"
	"telha.dev/core/storage/storagetest"
)

// memberEnv marks a run of the test binary as an etcd member.
const memberEnv = "TELHA_ETCDTEST_MEMBER"

// Members is the number of members of the clusters this package starts.
const Members = 3

// Limits of the clusters this package starts, and of their engines: the
// conformance suite writes batches of 500 mutations.
const (
	MaxTxnOps       = cluster.DefaultMaxTxnOps
	MaxRequestBytes = cluster.DefaultMaxRequestBytes
)

// Timeout is the engines' Config.Timeout: generous, for tests under -race
// on a loaded machine, where an fsync can take a second.
const Timeout = 20 * time.Second

// SharedElectionTimeout is the election timeout of the shared cluster,
// twice etcd's default: under -race on a loaded machine a heartbeat can be
// late by a second, and a spurious election fails the calls in flight.
// Nothing kills a member of the shared cluster, so a slower failover costs
// nothing; a longer timeout would delay the first election, and every test
// binary pays it once. ProcessCluster, whose tests kill members, keeps
// etcd's default unless told otherwise.
const SharedElectionTimeout = 2 * time.Second

// shared is the test binary's cluster. Its members do not sync their logs
// (cluster.Config.UnsafeNoFsync): nothing kills them, and on a shared disk
// three syncs per write made the subsystems' tests on etcd ten times
// slower. The fault tests, which kill members, start clusters of their own
// that sync (ProcessCluster).
var shared struct {
	once      sync.Once
	dir       string
	cluster   *cluster.Cluster
	err       error
	lastSpace atomic.Int64 // the last namespace handed out
}

// Main is os.Exit(Run(m)), for a TestMain with nothing else to do.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run runs the tests of a test binary, stops the shared cluster and removes
// its directory, and returns the exit code of m.Run, for a TestMain that
// has more to clean up. When this run of the binary is a member started by
// ProcessCluster, or a child started by storagetest.StartChild, it runs
// the member or the child and exits the process instead.
func Run(m *testing.M) int {
	storagetest.RunChild()
	if os.Getenv(memberEnv) != "" {
		if err := cluster.MemberMain(os.Args[1:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if err := stopShared(); err != nil {
		fmt.Fprintf(os.Stderr, "etcdtest: %v\n", err)
		code = max(code, 1)
	}
	return code
}

func init() {
	storagetest.Register(storagetest.EngineKind{
		Name:    "etcd",
		Durable: true,
		Remote:  true,
		NewStore: func(t testing.TB) func() (storage.Engine, error) {
			cfg := Config(t)
			return func() (storage.Engine, error) { return etcd.Open(cfg) }
		},
		Stop: stopShared,
	})
}

// stopShared stops the shared cluster, if it was started, and removes its
// directory.
func stopShared() error {
	var err error
	if shared.cluster != nil {
		if err = shared.cluster.Stop(); err != nil {
			err = fmt.Errorf("stop the shared cluster: %w", err)
		}
		shared.cluster = nil
	}
	if shared.dir != "" {
		err = errors.Join(err, os.RemoveAll(shared.dir))
		shared.dir = ""
	}
	return err
}

// sharedCluster starts the shared cluster on first use, in this process.
func sharedCluster(t testing.TB) *cluster.Cluster {
	t.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "telha-etcdtest-")
		if shared.err != nil {
			return
		}
		shared.cluster, shared.err = cluster.Start(cluster.Config{
			Dir:             shared.dir,
			Members:         Members,
			ElectionTimeout: SharedElectionTimeout,
			UnsafeNoFsync:   true, // never killed: see Config.UnsafeNoFsync
		}, cluster.InProcess())
	})
	if shared.err != nil {
		t.Fatalf("etcdtest: start the shared cluster: %v", shared.err)
	}
	return shared.cluster
}

// Config returns the configuration of an engine on a new, empty namespace
// of the shared cluster. The namespace's keys are deleted when the test
// ends.
func Config(t testing.TB) etcd.Config {
	t.Helper()
	c := sharedCluster(t)
	ns := fmt.Sprintf("test-%d/", shared.lastSpace.Add(1))
	t.Cleanup(func() { wipe(t, c.Endpoints(), ns) })
	return EngineConfig(c, ns)
}

// EngineConfig returns the configuration of an engine on namespace ns of c,
// with the limits c's members enforce.
func EngineConfig(c *cluster.Cluster, ns string) etcd.Config {
	maxTxnOps, maxRequestBytes := c.Limits()
	return etcd.Config{
		Endpoints:       c.Endpoints(),
		Namespace:       ns,
		Timeout:         Timeout,
		MaxTxnOps:       maxTxnOps,
		MaxRequestBytes: maxRequestBytes,
	}
}

// Engine returns an engine on a new, empty namespace of the shared cluster,
// closed (if the test has not closed it) and wiped when the test ends.
func Engine(t testing.TB) *etcd.Engine {
	t.Helper()
	e, err := etcd.Open(Config(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// wipe deletes every key of namespace ns, a page of keys per request:
// one deletion of a namespace that a benchmark filled with a hundred
// thousand keys outlasts the server's own request timeout. Namespaces of
// this package end in "/", so that no namespace is a prefix of another.
func wipe(t testing.TB, endpoints []string, ns string) {
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: Timeout, Logger: zap.NewNop()})
	if err != nil {
		t.Errorf("etcdtest: wipe namespace %q: %v", ns, err)
		return
	}
	defer client.Close()
	const page = 4096
	end := clientv3.GetPrefixRangeEnd(ns)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), Timeout)
		resp, err := client.Get(ctx, ns, clientv3.WithRange(end), clientv3.WithKeysOnly(), clientv3.WithLimit(page))
		if err == nil && len(resp.Kvs) > 0 {
			last := string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
			_, err = client.Delete(ctx, ns, clientv3.WithRange(last))
		}
		cancel()
		if err != nil {
			t.Errorf("etcdtest: wipe namespace %q: %v", ns, err)
			return
		}
		if !resp.More {
			return
		}
	}
}

// ProcessCluster starts a cluster of its own, whose members are child
// processes (this test binary, run again through Main), and stops it when
// the test ends. Its members can be killed with SIGKILL and restarted.
func ProcessCluster(t testing.TB, cfg cluster.Config) *cluster.Cluster {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.Start(cfg, cluster.Processes(func(args []string) *exec.Cmd {
		cmd := exec.Command(self, args...)
		cmd.Env = append(os.Environ(), memberEnv+"=1")
		return cmd
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

// ChildArgs are the arguments that hand a child process
// (storagetest.StartChild) an engine on cfg's cluster and namespace and
// one tenant: OpenChild opens them there. Several processes on one
// namespace are how a deployment of several replicas on one cluster is
// tested.
func ChildArgs(cfg etcd.Config, scope storage.TenantScope) []string {
	b, err := json.Marshal(cfg)
	if err != nil {
		panic(fmt.Sprintf("etcdtest: encode a config: %v", err))
	}
	return []string{string(b), storagetest.FormatScope(scope)}
}

// OpenChild opens, in a child process, the engine that ChildArgs named in
// the first of args, and returns it, the tenant and the rest of args.
func OpenChild(args []string) (*etcd.Engine, storage.TenantScope, []string, error) {
	if len(args) < 2 {
		return nil, storage.TenantScope{}, nil, errors.New("etcdtest: a child without its engine's and tenant's arguments")
	}
	var cfg etcd.Config
	if err := json.Unmarshal([]byte(args[0]), &cfg); err != nil {
		return nil, storage.TenantScope{}, nil, fmt.Errorf("etcdtest: decode the child's engine: %w", err)
	}
	scope, err := storagetest.ParseScope(args[1])
	if err != nil {
		return nil, storage.TenantScope{}, nil, err
	}
	e, err := etcd.Open(cfg)
	if err != nil {
		return nil, storage.TenantScope{}, nil, err
	}
	return e, scope, args[2:], nil
}
