package rocksdb

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// testMemtableSize keeps test stores small: each family's memtable carries
// a prefix bloom of a tenth of it, allocated at open.
const testMemtableSize = 1 << 20

// testConfig returns the configuration of a new store under t's temporary
// directory.
func testConfig(t testing.TB) Config {
	return Config{
		Path:            filepath.Join(t.TempDir(), "store"),
		CreateIfMissing: true,
		MemtableSize:    testMemtableSize,
	}
}

// openTest opens cfg and closes the engine when the test ends.
func openTest(t testing.TB, cfg Config) *Engine {
	t.Helper()
	e, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
			t.Error(err)
		}
	})
	return e
}

// newTestEngine opens a new, empty store.
func newTestEngine(t testing.TB) *Engine { return openTest(t, testConfig(t)) }

// newScope returns a fresh tenant scope: storagetest.TenantScope, which
// these internal tests cannot import (storagetest imports this package).
func newScope(t testing.TB) storage.TenantScope {
	t.Helper()
	s, err := storage.NewTenantScope(uuid.New(), uuid.New())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// maxScope is the all-0xFF scope, whose ranges have no successor and run to
// the end of the family.
func maxScope(t testing.TB) storage.TenantScope {
	t.Helper()
	s, err := storage.NewTenantScope(uuid.Max, uuid.Max)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// collect runs a scan to its end and returns its rows, failing t on error.
func collect(t testing.TB, r storage.Reader, rng storage.ScanRange) []storage.KV {
	t.Helper()
	var rows []storage.KV
	for kv, err := range r.Scan(rng) {
		if err != nil {
			t.Fatalf("scan %s: %v", rng, err)
		}
		rows = append(rows, kv)
	}
	return rows
}

// putNode writes n versions of a new node in a new scope, version v with
// value(v), and returns the scope and node.
func putNode(t testing.TB, e storage.Engine, n int, value func(v int) []byte) (storage.TenantScope, uuid.UUID) {
	t.Helper()
	s, id := newScope(t), uuid.New()
	for v := range n {
		if err := e.Put(nodeKey(s, id, v), value(v)); err != nil {
			t.Fatal(err)
		}
	}
	return s, id
}

// constValue is the value "x" for every version.
func constValue(int) []byte { return []byte("x") }

// createStore creates an empty store and closes it, returning the
// configuration that reopens it.
func createStore(t testing.TB) Config {
	t.Helper()
	cfg := testConfig(t)
	e, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	cfg.CreateIfMissing = false
	return cfg
}

// nodeKey is version v of node id in scope s.
func nodeKey(s storage.TenantScope, id uuid.UUID, v int) storage.Key {
	return storage.NodeVersionKey(s, id, storage.Timestamp(v), storage.Timestamp(v))
}

// openCursors returns the number of registered scan iterators.
func openCursors(e *Engine) int {
	e.live.Lock()
	defer e.live.Unlock()
	return len(e.cursors)
}

// flushFamily writes cf's memtable to a table file.
func flushFamily(e *Engine, cf storage.ColumnFamily) error {
	if err := e.enter(nil); err != nil {
		return err
	}
	defer e.mu.RUnlock()
	opts := grocksdb.NewDefaultFlushOptions()
	defer opts.Destroy()
	opts.SetWait(true)
	return e.db.FlushCF(e.families[cf], opts)
}
