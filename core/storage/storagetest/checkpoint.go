package storagetest

import (
	"maps"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// testCheckpoint checks that a checkpoint holds exactly the rows at its
// moment, however the original changes afterwards; that it opens as a
// working, independent store (written to, range-deleted, checkpointed in
// turn); that an empty engine checkpoints to an empty store; and that
// Checkpoint refuses a directory that exists.
func testCheckpoint(t *testing.T, h Harness) {
	e := open(t, h)
	fx := newFixture(t, allScopes, &edgeValues)
	fx.load(t, e)
	m := fx.model()
	dir := filepath.Join(t.TempDir(), "checkpoint")
	must(t, e.Checkpoint(dir))
	atCheckpoint := maps.Clone(m)

	// Change the original by every path after the checkpoint.
	var b storage.Batch
	b.Put(fx.rows[storage.Vectors][3].key, []byte("overwritten after the checkpoint"))
	b.Delete(fx.rows[storage.Sources][7].key)
	b.Put(storage.TraceKey(tenantC.tenant, uuid.UUID{15: 0x99}), []byte("added after the checkpoint"))
	m.apply(&b)
	must(t, e.Write(&b))
	jobsB := storage.TenantAll(tenantB.tenant, storage.Jobs)
	must(t, e.DeleteRange(jobsB))
	deleteRange(m, jobsB)

	if err := e.Checkpoint(dir); err == nil {
		t.Errorf("Checkpoint into an existing directory succeeded")
	}

	cp := openCheckpoint(t, h, dir)
	checkTables(t, "opened checkpoint", cp, atCheckpoint.tables())

	// The checkpoint is a working store of its own.
	b.Reset()
	b.Put(storage.SchemaKey(tenantD.tenant, storage.HashLabel("label"), 1), []byte("written to the checkpoint"))
	b.Delete(fx.rows[storage.BitmapIndex][0].key)
	atCheckpoint.apply(&b)
	must(t, cp.WriteDurable(&b))
	spansA := storage.TenantAll(tenantA.tenant, storage.Spans)
	must(t, cp.DeleteRange(spansA))
	deleteRange(atCheckpoint, spansA)
	checkTables(t, "checkpoint after writes", cp, atCheckpoint.tables())
	checkTables(t, "original after writes to its checkpoint", e, m.tables())

	again := filepath.Join(t.TempDir(), "checkpoint-of-checkpoint")
	must(t, cp.Checkpoint(again))
	checkTables(t, "checkpoint of a checkpoint", openCheckpoint(t, h, again), atCheckpoint.tables())

	empty := filepath.Join(t.TempDir(), "empty")
	must(t, open(t, h).Checkpoint(empty))
	checkTables(t, "checkpoint of an empty engine", openCheckpoint(t, h, empty), tables{})
}

// deleteRange removes the keys of rg from m.
func deleteRange(m model, rg storage.ScanRange) {
	for k := range m {
		if rg.Contains(k) {
			delete(m, k)
		}
	}
}
