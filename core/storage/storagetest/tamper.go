package storagetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// testForgedKeys hands every key operation, on the engine and on a
// snapshot, keys that break a rule of storage.Key.Valid: each must be
// refused with ErrInvalidKey, and nothing may change.
func testForgedKeys(t *testing.T, h Harness) {
	e, fx, snap := loadedWithSnapshot(t, h, []scope{systemScope, tenantA})
	for _, f := range forgedKeys() {
		if f.key.Valid() {
			t.Errorf("%s: storage.Key.Valid accepts it", f.name)
		}
		for _, rd := range []storage.Reader{e, snap} {
			if v, err := rd.Get(f.key); !errors.Is(err, storage.ErrInvalidKey) {
				t.Errorf("Get of a key with %s = %q, %v; want ErrInvalidKey", f.name, v, err)
			}
		}
		for name, err := range map[string]error{
			"Put":    e.Put(f.key, []byte("forged")),
			"Delete": e.Delete(f.key),
		} {
			if !errors.Is(err, storage.ErrInvalidKey) {
				t.Errorf("%s of a key with %s = %v, want ErrInvalidKey", name, f.name, err)
			}
		}
	}
	checkTables(t, "after forged keys", e, fx.model().tables())
}

// testForgedRanges hands Scan and DeleteRange ranges whose bounds were
// changed after they were built: each must be refused with
// ErrInvalidRange, without a row, and nothing may change.
func testForgedRanges(t *testing.T, h Harness) {
	e, fx, snap := loadedWithSnapshot(t, h, allScopes)
	for _, f := range forgedRanges() {
		if f.r.Valid() {
			t.Errorf("%s: storage.ScanRange.Valid accepts it", f.name)
		}
		for _, rd := range []storage.Reader{e, snap} {
			if rows, err := scanAll(rd, f.r); len(rows) != 0 || !errors.Is(err, storage.ErrInvalidRange) {
				t.Errorf("Scan of a range with %s = %d rows, %v; want only ErrInvalidRange", f.name, len(rows), err)
			}
		}
		if err := e.DeleteRange(f.r); !errors.Is(err, storage.ErrInvalidRange) {
			t.Errorf("DeleteRange of a range with %s = %v, want ErrInvalidRange", f.name, err)
		}
	}
	checkTables(t, "after forged ranges", e, fx.model().tables())
}

// loadedWithSnapshot opens an engine holding the edge-value fixture of
// scopes, and a snapshot of it closed when the test ends.
func loadedWithSnapshot(t *testing.T, h Harness, scopes []scope) (storage.Engine, *fixture, storage.Snapshot) {
	e := open(t, h)
	fx := newFixture(t, scopes, &edgeValues)
	fx.load(t, e)
	snap, err := e.Snapshot()
	must(t, err)
	t.Cleanup(func() { _ = snap.Close() })
	return e, fx, snap
}

// testTamperedBatches changes batches after they were built, where Batch's
// own checks can no longer see it: a mutation's key replaced by a forged
// one, its kind by an unknown one, its value by one longer than
// storage.MaxValueLen. Write and WriteDurable must refuse each batch whole
// with the sentinel of the fault, applying none of its good mutations; a
// nil batch is refused with ErrNilBatch. Changing the values a batch hands
// out after the write must not change what was stored.
func testTamperedBatches(t *testing.T, h Harness) {
	e := open(t, h)
	m := model{}
	var seed storage.Batch
	seed.Put(nodeKey(1), []byte("one"))
	m.apply(&seed)
	must(t, e.Write(&seed))

	type tamper struct {
		name   string
		change func(*storage.Mutation)
		want   error
	}
	var tampers []tamper
	for _, f := range forgedKeys() {
		tampers = append(tampers, tamper{"key with " + f.name, func(mu *storage.Mutation) { mu.Key = f.key }, storage.ErrInvalidKey})
	}
	for _, kind := range []storage.MutationKind{0, storage.MutationDelete + 1, 0xff} {
		tampers = append(tampers, tamper{fmt.Sprintf("mutation kind %d", kind), func(mu *storage.Mutation) { mu.Kind = kind }, storage.ErrUnknownKind})
	}
	if huge, release, err := hugeValue(); err == nil {
		defer release()
		tampers = append(tampers, tamper{"put of a value longer than MaxValueLen", func(mu *storage.Mutation) {
			mu.Kind, mu.Value = storage.MutationPut, huge
		}, storage.ErrValueTooLarge})
	} else {
		t.Logf("no value longer than MaxValueLen to try: %v", err)
	}

	for _, tm := range tampers {
		for _, w := range writers {
			for at := range 3 { // the first, a middle and the last mutation
				var b storage.Batch
				b.Put(nodeKey(2), []byte("two"))
				b.Put(storage.TraceKey(tenantB.tenant, uuid.UUID{15: 2}), []byte("trace"))
				b.Delete(nodeKey(1))
				tm.change(&(*internalMutations(&b))[at])
				if b.Err() != nil {
					t.Fatalf("a batch changed after it was built reports %v: the tampering did not bypass Batch", b.Err())
				}
				what := fmt.Sprintf("%s of a batch whose mutation %d has a %s", w.name, at, tm.name)
				if err := w.write(e, &b); !errors.Is(err, tm.want) {
					t.Errorf("%s = %v, want %v", what, err, tm.want)
				}
				checkTables(t, what, e, m.tables())
			}
		}
	}

	for _, w := range writers {
		if err := w.write(e, nil); !errors.Is(err, storage.ErrNilBatch) {
			t.Errorf("%s(nil) = %v, want ErrNilBatch", w.name, err)
		}
	}
	var nilBatch *storage.Batch
	nilBatch.Put(nodeKey(3), []byte("x"))
	nilBatch.Delete(nodeKey(3))
	nilBatch.Reset()
	if nilBatch.Len() != 0 || !errors.Is(nilBatch.Err(), storage.ErrNilBatch) {
		t.Errorf("nil batch: Len %d, Err %v; want 0 and ErrNilBatch", nilBatch.Len(), nilBatch.Err())
	}
	checkTables(t, "after nil batches", e, m.tables())

	// The values a batch yields are its own copies; changing them after the
	// write, or changing the mutations it yields, changes nothing stored.
	var b storage.Batch
	b.Put(nodeKey(4), []byte("four"))
	m.apply(&b)
	must(t, e.Write(&b))
	for _, mu := range b.All() {
		mu.Value[0] = 'X'
		mu.Key = storage.Key{}
	}
	for _, mu := range b.All() {
		if !mu.Key.Valid() {
			t.Errorf("changing a mutation yielded by Batch.All changed the batch")
		}
	}
	checkTables(t, "after changing a written batch's values", e, m.tables())
}
