package storage_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// process is an engine value of its own over a shared store: what another
// process sharing one cluster namespace has. The wipe registry keys by
// engine value, so each process has its own listeners and its own record
// of the generations it has seen.
type process struct{ *storage.MemoryEngine }

// A wipe through one process drops that process's caches at once; another
// process's caches are dropped by its next RefreshTenant, once, and only
// for the tenant whose generation moved.
func TestRefreshTenantSeesOtherProcesses(t *testing.T) {
	store := storage.NewMemoryEngine()
	a, b := &process{store}, &process{store}
	scopes := storagetest.TenantScopes(t, 2)
	wiped := scopes[0]
	var ca, cb cache
	storage.OnWipe(a, &ca, (*cache).forget)
	storage.OnWipe(b, &cb, (*cache).forget)
	for _, s := range scopes {
		if err := storage.RefreshTenant(b, s); err != nil {
			t.Fatal(err)
		}
	}
	cb.wiped = nil // the first refresh validates whatever was cached before it

	if err := storage.WipeTenant(a, wiped); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ca.wiped, []storage.TenantScope{wiped}) || len(cb.wiped) != 0 {
		t.Fatalf("after a wipe through a: a dropped %v, b %v; want a only", ca.wiped, cb.wiped)
	}
	for range 3 {
		for _, s := range scopes {
			if err := storage.RefreshTenant(b, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Equal(cb.wiped, []storage.TenantScope{wiped}) {
		t.Fatalf("b's refreshes dropped %v, want the wiped tenant once", cb.wiped)
	}
	// a wrote the change itself: its caches are valid as of it.
	if err := storage.RefreshTenant(a, wiped); err != nil {
		t.Fatal(err)
	}
	if len(ca.wiped) != 1 {
		t.Errorf("a's refresh after its own wipe dropped again: %v", ca.wiped)
	}
	if err := storage.RefreshTenant(b, storage.TenantScope{}); !errors.Is(err, storage.ErrNilScope) {
		t.Errorf("refresh of the zero scope: %v", err)
	}
	if err := storage.RefreshTenant(nil, wiped); err != nil {
		t.Errorf("refresh on an engine without caches: %v", err)
	}
}

// WriteInvalidating advances the generation with its batch; overtaken by
// another advance, it builds and writes again; a conflict on a condition
// of its own batch is returned, with nothing applied.
func TestWriteInvalidating(t *testing.T) {
	store := storage.NewMemoryEngine()
	a, b := &process{store}, &process{store}
	s := storagetest.TenantScope(t)
	row := storage.TraceKey(s, uuid.UUID{15: 1})
	builds := 0
	err := storage.WriteInvalidating(a, s, func(batch *storage.Batch) error {
		builds++
		if builds == 1 { // another process advances the generation first
			if err := storage.WipeTenant(b, s); err != nil {
				return err
			}
		}
		batch.Put(row, []byte("written"))
		return nil
	})
	if err != nil || builds != 2 {
		t.Fatalf("an overtaken write: %v after %d builds, want nil after 2", err, builds)
	}
	if g, err := storage.ReadGeneration(store, s); err != nil || g.Value() != 2 {
		t.Fatalf("generation %d, %v; want 2 (the wipe's and the write's)", g.Value(), err)
	}
	err = storage.WriteInvalidating(a, s, func(batch *storage.Batch) error {
		batch.RequireAbsent(row)
		batch.Put(storage.TraceKey(s, uuid.UUID{15: 2}), []byte("never"))
		return nil
	})
	if !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("a write whose own condition fails: %v, want ErrConflict", err)
	}
	if _, err := store.Get(storage.TraceKey(s, uuid.UUID{15: 2})); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the refused write's row: %v", err)
	}
	if g, err := storage.ReadGeneration(store, s); err != nil || g.Value() != 2 {
		t.Errorf("generation %d after a refused write, %v; want 2", g.Value(), err)
	}
}
