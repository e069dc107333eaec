package bitmap

import (
	"errors"
	"math"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

// TestIndexHostileInput: an index without an engine, a nil reader, and a
// call whose before and after versions are of different nodes fail with
// typed errors and stage nothing.
func TestIndexHostileInput(t *testing.T) {
	e := storage.NewMemoryEngine()
	scope := storagetest.TenantScope(t)
	a := &temporal.Version{ID: uuid.New(), Labels: []string{"L"}, Props: temporal.Properties{"p": temporal.Int(1)}}
	b := &temporal.Version{ID: uuid.New(), Labels: []string{"L"}}
	var batch storage.Batch
	var zero Index
	for name, ix := range map[string]*Index{"New(nil)": New(nil, Options{}), "zero Index": &zero} {
		if err := ix.IndexNode(&batch, scope, nil, a); !errors.Is(err, storage.ErrNotOpen) {
			t.Errorf("%s: IndexNode: %v", name, err)
		}
	}
	ix := New(e, Options{})
	if err := ix.IndexNode(&batch, scope, a, b); !errors.Is(err, ErrMismatchedVersions) {
		t.Errorf("before and after of different nodes: %v", err)
	}
	if batch.Len() != 0 {
		t.Errorf("refused calls staged %d rows", batch.Len())
	}
	if _, err := ix.Equal(nil, scope, "L", "p", temporal.Int(1)); !errors.Is(err, storage.ErrNotOpen) {
		t.Errorf("Equal with a nil reader: %v", err)
	}
	if _, err := ix.Range(nil, scope, "L", "p", temporal.Int(1), temporal.Int(2)); !errors.Is(err, storage.ErrNotOpen) {
		t.Errorf("Range with a nil reader: %v", err)
	}
}

// TestRowIDsExhausted: a label whose row-id watermark is at the end of the
// 32-bit range refuses a new node with ErrRowsExhausted rather than wrap
// around and reuse row 0; the write fails as a whole.
func TestRowIDsExhausted(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		ts, ix := open(e, Options{})
		scope := storagetest.TenantScope(t)
		if err := e.Put(storage.BitmapAllocKey(scope, storage.HashLabel("L")), encodeAlloc(math.MaxUint32-1)); err != nil {
			t.Fatal(err)
		}
		last, next := uuid.New(), uuid.New()
		assertNode(t, ts, scope, last, []string{"L"}, temporal.Properties{"p": temporal.Int(7)})
		_, err := ts.AssertNode(scope, temporal.NodeFact{ID: next, Valid: always(), Labels: []string{"L"}, Props: temporal.Properties{"p": temporal.Int(7)}})
		if !errors.Is(err, ErrRowsExhausted) {
			t.Fatalf("node past the last row id: %v", err)
		}
		if _, err := ts.CurrentNode(scope, next); !errors.Is(err, temporal.ErrNotFound) {
			t.Fatalf("the refused node was written: %v", err)
		}
		got, err := ix.Equal(e, scope, "L", "p", temporal.Int(7))
		if err != nil || len(got) != 1 || got[0] != last {
			t.Fatalf("index after the refusal: %v, %v; want only the last node", got, err)
		}
	})
}
