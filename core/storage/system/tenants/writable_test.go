package tenants

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// TestRequireWritable checks the fence of a tenant's writes on its
// registry row: a batch checked while the tenant is active (or unknown)
// lands while the row is unchanged and is refused once any change of
// state, by any writer, rewrote it; a tenant importing, erasing or erased
// is refused at the check.
func TestRequireWritable(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		// checked returns a batch of one row of s that passed the check.
		checked := func(s storage.TenantScope) *storage.Batch {
			t.Helper()
			var b storage.Batch
			b.Put(storage.SourceChunkKey(s, uuid.UUID{1}, 0), []byte("row"))
			if err := RequireWritable(e, &b, s); err != nil {
				t.Fatalf("check %s: %v", s, err)
			}
			return &b
		}
		unknown, provisioned := scopeN(t, 1), scopeN(t, 2)
		if err := e.Write(checked(unknown)); err != nil {
			t.Fatalf("write to an unknown tenant: %v", err)
		}
		stale := checked(unknown)
		if err := Provision(e, unknown, "late"); err != nil {
			t.Fatal(err)
		}
		if err := e.Write(stale); !errors.Is(err, storage.ErrConflict) {
			t.Errorf("write checked before its tenant was provisioned: %v, want ErrConflict", err)
		}

		if err := Provision(e, provisioned, "p"); err != nil {
			t.Fatal(err)
		}
		if err := e.Write(checked(provisioned)); err != nil {
			t.Fatalf("write to an active tenant: %v", err)
		}
		state := Active
		for _, next := range []State{Importing, Active, Erasing, Erased} {
			var stale *storage.Batch
			if state == Active {
				stale = checked(provisioned)
			}
			if err := SetState(e, provisioned, next); err != nil {
				t.Fatal(err)
			}
			state = next
			if stale != nil {
				if err := e.Write(stale); !errors.Is(err, storage.ErrConflict) {
					t.Errorf("write checked before the tenant became %s: %v, want ErrConflict", next, err)
				}
			}
			var b storage.Batch
			err := RequireWritable(e, &b, provisioned)
			if next == Active {
				if err != nil {
					t.Errorf("check of a tenant active again: %v", err)
				}
			} else if !errors.Is(err, ErrNotWritable) || !errors.Is(err, storage.ErrTenantNotWritable) {
				t.Errorf("check of a tenant %s: %v, want ErrNotWritable", next, err)
			}
		}

		var b storage.Batch
		for _, tc := range []struct {
			name string
			r    storage.Reader
			s    storage.TenantScope
			want error
		}{
			{"no engine", nil, provisioned, storage.ErrNotOpen},
			{"the zero scope", e, storage.TenantScope{}, ErrNilScope},
		} {
			if err := RequireWritable(tc.r, &b, tc.s); !errors.Is(err, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			}
		}
		if err := RequireWritable(e, nil, scopeN(t, 3)); !errors.Is(err, storage.ErrNilBatch) {
			t.Errorf("nil batch: %v, want ErrNilBatch", err)
		}
	})
}

// TestWriteFenced checks WriteFenced's attempts: a batch whose own
// condition fails is refused once with ErrConflict, not made again; a
// batch of a tenant provisioned meanwhile lands; one of a tenant that
// began its erasure meanwhile is ErrNotWritable; b itself never carries
// the fence.
func TestWriteFenced(t *testing.T) {
	inner := storage.NewMemoryEngine()
	t.Cleanup(func() { _ = inner.Close() })
	e := &storagetest.RacingWriter{Engine: inner}
	row := func(s storage.TenantScope, n byte) storage.Key { return storage.SourceChunkKey(s, uuid.UUID{n}, 0) }
	a, b := scopeN(t, 1), scopeN(t, 2)

	var own storage.Batch
	own.RequireValue(row(a, 1), []byte("never written"))
	own.Put(row(a, 2), []byte("x"))
	if err := WriteFenced(e, false, &own); !errors.Is(err, storage.ErrConflict) {
		t.Errorf("a batch whose own condition fails: %v, want ErrConflict", err)
	}
	n := 0
	for range own.Conditions() {
		n++
	}
	if n != 1 {
		t.Errorf("the batch carries %d conditions after WriteFenced, want its own 1", n)
	}

	var late storage.Batch
	late.Put(row(a, 3), []byte("lands"))
	e.Arm(func() {
		if err := Provision(inner, a, "late"); err != nil {
			t.Error(err)
		}
	})
	if err := WriteFenced(e, true, &late); err != nil {
		t.Errorf("a batch of a tenant provisioned meanwhile: %v", err)
	}
	if _, err := inner.Get(row(a, 3)); err != nil {
		t.Errorf("its row: %v", err)
	}

	if err := Provision(inner, b, "leaving"); err != nil {
		t.Fatal(err)
	}
	var leaving storage.Batch
	leaving.Put(row(a, 4), []byte("a"))
	leaving.Put(row(b, 4), []byte("b"))
	e.Arm(func() {
		if err := SetState(inner, b, Erasing); err != nil {
			t.Error(err)
		}
	})
	if err := WriteFenced(e, false, &leaving); !errors.Is(err, ErrNotWritable) {
		t.Errorf("a batch of two tenants, one erasing meanwhile: %v, want ErrNotWritable", err)
	}
	for _, k := range []storage.Key{row(a, 4), row(b, 4)} {
		if _, err := inner.Get(k); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("a row of the refused batch landed: %v", err)
		}
	}
	if err := WriteFenced(nil, false, &leaving); !errors.Is(err, storage.ErrNotOpen) {
		t.Errorf("no engine: %v", err)
	}
}
