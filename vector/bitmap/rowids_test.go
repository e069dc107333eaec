package bitmap

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

// TestRowCacheAfterWipe: a wipe starts the tenant's row ids again from 0.
// Queries through the engine, whose row cache had resolved the old rows,
// must answer with the new nodes; a snapshot taken before the wipe keeps
// answering with the old ones; another tenant's cache is untouched.
func TestRowCacheAfterWipe(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		ts, ix := open(e, Options{})
		scope, other := storagetest.TenantScope(t), storagetest.TenantScope(t)
		fill := func(scope storage.TenantScope) []uuid.UUID {
			ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
			for _, id := range ids {
				assertNode(t, ts, scope, id, []string{"Doc"}, temporal.Properties{"k": temporal.Int(1)})
			}
			return ids
		}
		equal := func(r storage.Reader, scope storage.TenantScope) []uuid.UUID {
			got, err := ix.Equal(r, scope, "Doc", "k", temporal.Int(1))
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		before, others := fill(scope), fill(other)
		if got := equal(e, scope); !slices.Equal(got, before) { // fills the cache
			t.Fatalf("before the wipe: %v, want %v", got, before)
		}
		equal(e, other)
		snap, err := e.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		if err := storage.WipeTenant(e, scope); err != nil {
			t.Fatal(err)
		}
		after := fill(scope) // rows 0, 1, 2 again
		if got := equal(e, scope); !slices.Equal(got, after) {
			t.Fatalf("after the wipe: %v, want the new nodes %v", got, after)
		}
		if got := equal(snap, scope); !slices.Equal(got, before) {
			t.Fatalf("snapshot from before the wipe: %v, want %v", got, before)
		}
		if got := equal(e, other); !slices.Equal(got, others) {
			t.Fatalf("other tenant: %v, want %v", got, others)
		}
	})
}
