// Package temporaltest runs a test body once per storage engine, so that
// every behaviour of telha.dev/temporal and telha.dev/graph is proven on the
// in-memory baseline and on RocksDB alike.
package temporaltest

import (
	"testing"

	"github.com/google/uuid"
	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
)

// Env is one engine under test.
type Env struct {
	// Engine is the open engine.
	Engine storage.Engine
	// Reopen simulates a restart: it closes the engine and opens the same
	// data again (the memory engine has no restart and stays as it is).
	Reopen func() storage.Engine
}

// Engines returns the names of the engines Run uses.
func Engines() []string { return []string{"memory", "rocksdb"} }

// Run calls f in a subtest per engine with a fresh, empty store.
func Run(t *testing.T, f func(t *testing.T, env *Env)) {
	t.Helper()
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) { f(t, Open(t, name)) })
	}
}

// Open opens a fresh engine of the named kind, closed when t ends.
func Open(t testing.TB, name string) *Env {
	t.Helper()
	switch name {
	case "memory":
		e := storage.NewMemoryEngine()
		t.Cleanup(func() { _ = e.Close() })
		return &Env{Engine: e, Reopen: func() storage.Engine { return e }}
	case "rocksdb":
		dir := t.TempDir()
		env := &Env{}
		open := func() storage.Engine {
			e, err := rocksdb.Open(rocksdb.Config{Path: dir, CreateIfMissing: true, MemtableSize: 1 << 20, BlockCacheSize: 8 << 20})
			if err != nil {
				t.Fatalf("open rocksdb in %s: %v", dir, err)
			}
			return e
		}
		env.Engine = open()
		env.Reopen = func() storage.Engine {
			if err := env.Engine.Close(); err != nil {
				t.Fatalf("close rocksdb: %v", err)
			}
			env.Engine = open()
			return env.Engine
		}
		t.Cleanup(func() { _ = env.Engine.Close() })
		return env
	}
	t.Fatalf("unknown engine %q", name)
	return nil
}

// Scopes returns n distinct tenant scopes.
func Scopes(t testing.TB, n int) []storage.TenantScope {
	t.Helper()
	out := make([]storage.TenantScope, n)
	for i := range out {
		s, err := storage.NewTenantScope(uuid.New(), uuid.New())
		if err != nil {
			t.Fatal(err)
		}
		out[i] = s
	}
	return out
}

// ID returns a deterministic, non-nil logical id for n, so that tests can
// name the same logical ids in several tenants.
func ID(n int) uuid.UUID {
	var id uuid.UUID
	id[0] = 0x01
	id[8] = byte(n >> 24)
	id[9] = byte(n >> 16)
	id[10] = byte(n >> 8)
	id[11] = byte(n)
	return id
}
