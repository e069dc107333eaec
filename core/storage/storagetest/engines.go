package storagetest

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
)

// The engine matrix. Every test of every module that touches storage runs
// on each kind of engine, through EachEngine, so that a behaviour is proven
// on the in-memory baseline, on RocksDB, and on every engine registered
// with Register:
//
//	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
//		s := temporal.Open(env.Engine, opts)
//		...
//	})
//
// A test binary that uses the matrix has this TestMain, so that engine
// kinds can stop what they share once its tests have run:
//
//	func TestMain(m *testing.M) { os.Exit(storagetest.RunMain(m)) }
//
// An engine of another module, which this package cannot import, joins the
// matrix of a test binary with one blank import of its test package next to
// that TestMain; the package calls Register from an init function.
// TestEveryBinaryHasEveryEngine fails for a test binary of the workspace
// that uses the matrix without that import, but for those of the modules
// the engine's module requires (core's, for etcd), which cannot import it.
//
// A rapid property over the matrix runs through Check, not rapid.Check, so
// that a remote engine runs a share of its cases.

// EngineKind is one kind of engine in the matrix.
type EngineKind struct {
	// Name names the kind's subtests: "memory", "rocksdb".
	Name string

	// Durable reports that a store keeps what was written across Close and
	// a new open. Env.Reopen restarts a durable store; a store that is not
	// durable (memory) stays open as it is.
	Durable bool

	// NewStore creates a new, empty store for t, removed when t ends, and
	// returns the function that opens it. The matrix calls open once, and
	// again, for a durable kind, after each Close of the engine it got; it
	// closes the last engine when t ends.
	NewStore func(t testing.TB) (open func() (storage.Engine, error))

	// Remote reports that every call is a round trip to other processes (a
	// write, a quorum round): a property test runs fewer cases on it (see
	// Check).
	Remote bool

	// Stop, if set, releases what the kind's stores share within a test
	// binary, such as a test cluster started on first use. RunMain calls it
	// once the binary's tests have run.
	Stop func() error
}

// MemtableSize is the memtable size of the matrix's RocksDB stores. Each
// family's memtable carries a prefix bloom of a tenth of it, allocated at
// open, so a small one keeps the many stores of a test run quick to open;
// it also makes RocksDB flush to table files within a test's few writes.
const MemtableSize = 1 << 20

var builtinKinds = []EngineKind{
	{
		Name: "memory",
		NewStore: func(testing.TB) func() (storage.Engine, error) {
			e := storage.NewMemoryEngine()
			return func() (storage.Engine, error) { return e, nil }
		},
	},
	{
		Name:    "rocksdb",
		Durable: true,
		NewStore: func(t testing.TB) func() (storage.Engine, error) {
			dir := t.TempDir()
			return func() (storage.Engine, error) { return rocksdb.Open(RocksDBConfig(dir)) }
		},
	},
}

// registered holds the kinds added by Register, in registration order.
var registered struct {
	sync.Mutex
	kinds []EngineKind
}

// Register adds an engine kind to the matrix of this test binary. It is
// meant to be called from an init function, and panics on a kind without a
// name or a NewStore function, or whose name is taken.
func Register(k EngineKind) {
	if k.Name == "" || k.NewStore == nil {
		panic("storagetest: Register needs an EngineKind with a Name and a NewStore function")
	}
	registered.Lock()
	defer registered.Unlock()
	for _, other := range append(slices.Clone(builtinKinds), registered.kinds...) {
		if other.Name == k.Name {
			panic(fmt.Sprintf("storagetest: engine kind %q registered twice", k.Name))
		}
	}
	registered.kinds = append(registered.kinds, k)
}

// Engines returns the matrix: memory, RocksDB, then the registered kinds.
func Engines() []EngineKind {
	registered.Lock()
	defer registered.Unlock()
	return append(slices.Clone(builtinKinds), registered.kinds...)
}

// RunMain runs the tests of a binary that uses the matrix, then stops what
// its engine kinds share; a run of the binary started by StartChild runs
// the child instead (RunChild). It returns the exit code for os.Exit: m.Run's, or
// 1 if a kind fails to stop.
func RunMain(m *testing.M) int {
	RunChild()
	code := m.Run()
	for _, k := range Engines() {
		if k.Stop == nil {
			continue
		}
		if err := k.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "storagetest: stop engine kind %s: %v\n", k.Name, err)
			code = max(code, 1)
		}
	}
	return code
}

// Env is one engine of the matrix under test.
type Env struct {
	// Kind names the engine's kind.
	Kind string
	// Engine is the open engine. Reopen replaces it.
	Engine storage.Engine

	remote  bool
	durable bool
	open    func() (storage.Engine, error)
}

// Reopen restarts a durable store: it closes Engine (an engine the test
// closed already is fine) and opens the same store again, which holds
// every write that returned. A store that is not durable stays open as it
// is. Either way it returns Engine.
func (env *Env) Reopen(t testing.TB) storage.Engine {
	t.Helper()
	if !env.durable {
		return env.Engine
	}
	if err := env.Engine.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("close %s engine: %v", env.Kind, err)
	}
	e, err := env.open()
	if err != nil {
		t.Fatalf("reopen %s engine: %v", env.Kind, err)
	}
	env.Engine = e
	return e
}

// newEnv opens a new, empty store of kind k, closed when t ends.
func (k EngineKind) newEnv(t testing.TB) *Env {
	t.Helper()
	open := k.NewStore(t)
	e, err := open()
	if err != nil {
		t.Fatalf("open %s engine: %v", k.Name, err)
	}
	env := &Env{Kind: k.Name, Engine: e, remote: k.Remote, durable: k.Durable, open: open}
	t.Cleanup(func() {
		if err := env.Engine.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
			t.Errorf("close %s engine: %v", env.Kind, err)
		}
	})
	return env
}

// EachEngine runs f as a subtest per engine kind of the matrix, each with a
// new, empty store.
func EachEngine(t *testing.T, f func(t *testing.T, env *Env)) {
	t.Helper()
	for _, k := range Engines() {
		t.Run(k.Name, func(t *testing.T) { f(t, k.newEnv(t)) })
	}
}

// EachDurableEngine is EachEngine over the durable kinds: for tests of what
// survives a restart, Env.Reopen after the engine was closed under load.
func EachDurableEngine(t *testing.T, f func(t *testing.T, env *Env)) {
	t.Helper()
	for _, k := range Engines() {
		if k.Durable {
			t.Run(k.Name, func(t *testing.T) { f(t, k.newEnv(t)) })
		}
	}
}

// RocksDBConfig is the configuration of the matrix's RocksDB store in dir.
func RocksDBConfig(dir string) rocksdb.Config {
	return rocksdb.Config{Path: dir, CreateIfMissing: true, MemtableSize: MemtableSize}
}

// OpenRocksDB opens, or creates, the matrix's RocksDB store in dir, for
// tests that must name the directory: a child process that opens its
// parent's store, a test that damages the files. The engine is closed when
// t ends, unless the test closed it.
func OpenRocksDB(t testing.TB, dir string) *rocksdb.Engine {
	t.Helper()
	e, err := rocksdb.Open(RocksDBConfig(dir))
	if err != nil {
		t.Fatalf("open rocksdb in %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
			t.Errorf("close rocksdb in %s: %v", dir, err)
		}
	})
	return e
}
