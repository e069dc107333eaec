// Package testengine runs a test against each storage engine: the memory
// engine, the semantic baseline, and RocksDB, the production one.
package testengine

import (
	"testing"

	"github.com/google/uuid"
	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
)

// Open returns a fresh engine of the named kind, "memory" or "rocksdb",
// closed when t ends.
func Open(t testing.TB, kind string) storage.Engine {
	t.Helper()
	var e storage.Engine
	switch kind {
	case "memory":
		e = storage.NewMemoryEngine()
	case "rocksdb":
		db, err := rocksdb.Open(rocksdb.Config{Path: t.TempDir(), CreateIfMissing: true})
		if err != nil {
			t.Fatalf("open rocksdb: %v", err)
		}
		e = db
	default:
		t.Fatalf("unknown engine kind %q", kind)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// Kinds are the engine kinds every test runs on.
var Kinds = []string{"memory", "rocksdb"}

// Each runs fn as a subtest once per engine kind, each with a fresh engine.
func Each(t *testing.T, fn func(t *testing.T, e storage.Engine)) {
	t.Helper()
	for _, kind := range Kinds {
		t.Run(kind, func(t *testing.T) { fn(t, Open(t, kind)) })
	}
}

// Scope returns a fresh tenant scope.
func Scope(t testing.TB) storage.TenantScope {
	t.Helper()
	s, err := storage.NewTenantScope(uuidV7(t), uuidV7(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func uuidV7(t testing.TB) uuid.UUID {
	t.Helper()
	id, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	return id
}
