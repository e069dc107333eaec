package storagetest

import (
	"errors"
	"maps"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// testSnapshotIsolation checks that a snapshot sees exactly the rows of its
// moment whatever is written after it (puts, overwrites, deletes, batches,
// range deletes), that a closed snapshot reports ErrClosed, and that closing
// the engine ends its open snapshots.
func testSnapshotIsolation(t *testing.T, h Harness) {
	e := open(t, h)
	fx := newFixture(t, []scope{systemScope, tenantA, tenantB}, &edgeValues)
	fx.load(t, e)
	m := fx.model()

	first, err := e.Snapshot()
	must(t, err)
	atFirst := maps.Clone(m)

	overwritten, deleted := fx.rows[storage.NodeVersions][0], fx.rows[storage.Jobs][0]
	added := storage.NodeVersionKey(tenantA.tenant, uuid.UUID{15: 0x42}, 0, 0)
	// mutate writes to the engine by every path, recording in m.
	mutate := func(round byte) {
		t.Helper()
		var b storage.Batch
		b.Put(overwritten.key, []byte{'o', round})
		b.Delete(deleted.key)
		b.Put(added, []byte{'a', round})
		b.Put(storage.SystemScope{}.VectorModelKey(storage.ModelIDOf("m"), 0), []byte{'s', round})
		m.apply(&b)
		must(t, applyOneByOne(e, &b))
		b.Reset()
		b.Put(storage.TraceKey(tenantB.tenant, uuid.UUID{15: round}), []byte{'t', round})
		b.Delete(fx.rows[storage.Spans][int(round)].key)
		m.apply(&b)
		must(t, e.Write(&b))
		gone := storage.TenantAll(tenantB.tenant, storage.AdjacencyOut)
		must(t, e.DeleteRange(gone))
		for k := range m {
			if gone.Contains(k) {
				delete(m, k)
			}
		}
	}
	mutate(1)
	checkTables(t, "engine after writes", e, m.tables())
	checkTables(t, "snapshot taken before the writes", first, atFirst.tables())
	if v := mustGet(t, first, overwritten.key); string(v) != string(overwritten.value) {
		t.Errorf("snapshot Get of a row overwritten later = %q, want %q", v, overwritten.value)
	}
	mustGet(t, first, deleted.key)
	checkAbsent(t, first, added)

	second, err := e.Snapshot()
	must(t, err)
	atSecond := maps.Clone(m)
	mutate(2)
	checkTables(t, "engine after more writes", e, m.tables())
	checkTables(t, "second snapshot", second, atSecond.tables())
	checkTables(t, "first snapshot, later", first, atFirst.tables())

	must(t, first.Close())
	checkClosedReader(t, "closed snapshot", first)
	if err := first.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
		t.Errorf("second snapshot Close = %v, want nil or ErrClosed", err)
	}

	must(t, e.Close())
	checkClosedReader(t, "snapshot of a closed engine", second)
	if err := second.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
		t.Errorf("Close of a snapshot of a closed engine = %v, want nil or ErrClosed", err)
	}
}

// checkClosedReader checks that Get and Scan of r report ErrClosed.
func checkClosedReader(t *testing.T, what string, r storage.Reader) {
	t.Helper()
	k := nodeKey(1)
	if v, err := r.Get(k); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("%s: Get = %q, %v; want ErrClosed", what, v, err)
	}
	if rows, err := scanAll(r, storage.TenantAll(tenantA.tenant, storage.NodeVersions)); len(rows) != 0 || !errors.Is(err, storage.ErrClosed) {
		t.Errorf("%s: Scan = %d rows, %v; want only ErrClosed", what, len(rows), err)
	}
}
