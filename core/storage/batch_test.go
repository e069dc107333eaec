package storage

import (
	"slices"
	"testing"

	"github.com/google/uuid"
)

// TestBatchTenantScopes checks that a batch names every tenant scope its
// puts, deletes and range deletions write, once each and in order, and
// no scope for its system rows or its conditions.
func TestBatchTenantScopes(t *testing.T) {
	scope := func(n byte) TenantScope {
		s, err := NewTenantScope(uuid.UUID{n}, uuid.UUID{n, n})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b, c, d := scope(1), scope(2), scope(3), scope(4)
	var batch Batch
	batch.RequireAbsent(TraceKey(d, uuid.UUID{1}))
	batch.Put(SystemScope{}.JobKey(JobQueued, 1, 1, uuid.UUID{1}), []byte("system"))
	batch.Put(TraceKey(b, uuid.UUID{1}), []byte("b"))
	batch.Delete(SourceChunkKey(a, uuid.UUID{2}, 0))
	batch.Put(TraceKey(b, uuid.UUID{2}), []byte("b again"))
	batch.DeleteRange(TenantAll(c, Vectors))
	if err := batch.Err(); err != nil {
		t.Fatal(err)
	}
	if got, want := batch.TenantScopes(), []TenantScope{b, a, c}; !slices.Equal(got, want) {
		t.Errorf("TenantScopes = %v, want %v", got, want)
	}
	var empty *Batch
	if got := empty.TenantScopes(); got != nil {
		t.Errorf("nil batch: %v", got)
	}
}
