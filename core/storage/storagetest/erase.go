package storagetest

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// testBatchDeleteRange deletes one tenant at a time with one batch of range
// deletions (storage.AddTenantDeletion) that also puts and deletes rows of
// other tenants, by both writers, and demands exactly the model: the
// tenant's rows gone, every other row byte-identical. It then checks what a
// batch refuses: a put inside a range it deletes, either way round
// (ErrRangeOverlap), and a range changed after it was recorded
// (ErrInvalidRange), refused whole.
func testBatchDeleteRange(t *testing.T, h Harness) {
	e := open(t, h)
	fx := newFixture(t, allScopes, &edgeValues)
	fx.load(t, e)
	want := fx.model()
	for i, s := range []scope{tenantB, tenantA, tenantD, tenantC} {
		other := tenants[(i+1)%len(tenants)]
		if other.name == s.name {
			other = tenants[(i+2)%len(tenants)]
		}
		var b storage.Batch
		storage.AddTenantDeletion(&b, s.tenant)
		b.Put(storage.TraceKey(other.tenant, uuid.UUID{15: byte(i + 1)}), []byte("kept"))
		if rows := fx.rowsOf(other); len(rows) > 0 {
			b.Delete(rows[0].key)
		}
		if err := b.Err(); err != nil {
			t.Fatalf("batch deleting tenant %s: %v", s.name, err)
		}
		want.apply(&b)
		must(t, writers[i%len(writers)].write(e, &b))
		checkTables(t, "after a batch deleting tenant "+s.name, e, want.tables())
	}

	nodesA := storage.TenantAll(tenantA.tenant, storage.NodeVersions)
	var putFirst, rangeFirst, beside storage.Batch
	putFirst.Put(nodeKey(1), []byte("x"))
	putFirst.DeleteRange(nodesA)
	rangeFirst.DeleteRange(nodesA)
	rangeFirst.Put(nodeKey(1), []byte("x"))
	for name, b := range map[string]*storage.Batch{"put, then its range deleted": &putFirst, "range deleted, then a put in it": &rangeFirst} {
		if err := b.Err(); !errors.Is(err, storage.ErrRangeOverlap) {
			t.Errorf("batch with a %s: Err = %v, want ErrRangeOverlap", name, err)
		}
		for _, w := range writers {
			if err := w.write(e, b); !errors.Is(err, storage.ErrRangeOverlap) {
				t.Errorf("%s of a batch with a %s = %v, want ErrRangeOverlap", w.name, name, err)
			}
		}
	}
	beside.DeleteRange(nodesA)
	beside.Delete(nodeKey(1))
	beside.Put(storage.NodeVersionKey(tenantC.tenant, uuid.UUID{15: 1}, 0, 0), []byte("beside"))
	beside.Put(storage.TraceKey(tenantA.tenant, uuid.UUID{15: 1}), []byte("other family"))
	if err := beside.Err(); err != nil {
		t.Errorf("a batch with a point deletion inside its deleted range and puts outside it: %v", err)
	}

	var zero storage.Batch
	storage.AddTenantDeletion(&zero, storage.TenantScope{})
	if err := zero.Err(); !errors.Is(err, storage.ErrInvalidRange) {
		t.Errorf("deletion of the zero scope: Err = %v, want ErrInvalidRange", err)
	}

	for _, f := range forgedRanges() {
		for _, w := range writers {
			var b storage.Batch
			b.Put(storage.TraceKey(tenantC.tenant, uuid.UUID{15: 9}), []byte("never"))
			b.DeleteRange(storage.TenantAll(tenantA.tenant, storage.Traces))
			(*internalMutations(&b))[1].Range = f.r
			if err := w.write(e, &b); !errors.Is(err, storage.ErrInvalidRange) {
				t.Errorf("%s of a batch deleting a range %s = %v, want ErrInvalidRange", w.name, f.name, err)
			}
			checkTables(t, w.name+" of a batch deleting a range "+f.name, e, want.tables())
		}
	}
}

// testCompactRanges compacts the ranges of a deleted tenant (storage.Compact):
// every engine of the suite is a storage.Compactor, and compaction changes
// no row, of the tenant or of anyone else. It refuses an invalid range and
// a closed engine. That the bytes leave the engine's files is an engine's
// own test (RocksDB: a marker searched for in every file of the store).
func testCompactRanges(t *testing.T, h Harness) {
	e := open(t, h)
	fx := newFixture(t, allScopes, &edgeValues)
	fx.load(t, e)
	want := fx.model()
	for _, s := range []scope{tenantA, tenantD} {
		var b storage.Batch
		storage.AddTenantDeletion(&b, s.tenant)
		want.apply(&b)
		must(t, e.WriteDurable(&b))
		if err := storage.Compact(e, storage.TenantRanges(s.tenant)); err != nil {
			t.Fatalf("compact the ranges of tenant %s: %v", s.name, err)
		}
		checkTables(t, "after compacting the ranges of tenant "+s.name, e, want.tables())
	}
	if err := storage.Compact(e, storage.TenantRanges(tenantB.tenant)); err != nil {
		t.Errorf("compact the ranges of a tenant with rows: %v", err)
	}
	checkTables(t, "after compacting the ranges of a live tenant", e, want.tables())
	for _, f := range forgedRanges() {
		if err := storage.Compact(e, []storage.ScanRange{f.r}); !errors.Is(err, storage.ErrInvalidRange) {
			t.Errorf("compact a range %s = %v, want ErrInvalidRange", f.name, err)
		}
		if err := e.(storage.Compactor).CompactRanges([]storage.ScanRange{f.r}); !errors.Is(err, storage.ErrInvalidRange) {
			t.Errorf("CompactRanges of a range %s = %v, want ErrInvalidRange", f.name, err)
		}
	}
	closeEngine(t, e)
	if err := storage.Compact(e, storage.TenantRanges(tenantB.tenant)); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("compact on a closed engine = %v, want ErrClosed", err)
	}
}
