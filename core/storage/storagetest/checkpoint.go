package storagetest

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// testCheckpointTargets points Checkpoint at directories it must refuse: one
// that exists (empty or not), a file, a path under a file, under a missing
// directory, with a NUL byte, and the empty path. Each must fail, without a
// panic, leaving the target as it was (an existing one with errors.Is
// fs.ErrExist) and creating nothing; the engine must then checkpoint
// normally.
func testCheckpointTargets(t *testing.T, h Harness) {
	e := open(t, h)
	must(t, e.Put(nodeKey(1), []byte("one")))
	base := t.TempDir()
	emptyDir := filepath.Join(base, "empty")
	fullDir := filepath.Join(base, "full")
	file := filepath.Join(base, "file")
	must(t, os.Mkdir(emptyDir, 0o755))
	must(t, os.Mkdir(fullDir, 0o755))
	must(t, os.WriteFile(filepath.Join(fullDir, "keep"), []byte("keep"), 0o644))
	must(t, os.WriteFile(file, []byte("file"), 0o644))
	before := listTree(t, base)
	targets := []struct {
		name  string
		dir   string
		exist bool
	}{
		{"an empty directory", emptyDir, true},
		{"a directory with a file", fullDir, true},
		{"a file", file, true},
		{"a path under a file", filepath.Join(file, "checkpoint"), false},
		{"a path under a missing directory", filepath.Join(base, "missing", "checkpoint"), false},
		{"a path with a NUL byte", filepath.Join(base, "nul\x00checkpoint"), false},
		{"the empty path", "", false},
	}
	for _, tg := range targets {
		err := safeCall(func() error { return e.Checkpoint(tg.dir) })
		switch {
		case err == nil:
			t.Errorf("Checkpoint to %s succeeded", tg.name)
		case tg.exist && !errors.Is(err, fs.ErrExist):
			t.Errorf("Checkpoint to %s = %v, want fs.ErrExist", tg.name, err)
		case strings.HasPrefix(err.Error(), "panic"):
			t.Errorf("Checkpoint to %s: %v", tg.name, err)
		}
		if after := listTree(t, base); !slices.Equal(before, after) {
			t.Errorf("Checkpoint to %s changed the directory: %v, then %v", tg.name, before, after)
		}
	}
	dir := filepath.Join(base, "checkpoint")
	must(t, e.Checkpoint(dir))
	if v := mustGet(t, openCheckpoint(t, h, dir), nodeKey(1)); string(v) != "one" {
		t.Errorf("checkpoint after refused targets: Get = %q, want %q", v, "one")
	}
}

// listTree returns every path under root, relative to it, sorted.
func listTree(t *testing.T, root string) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		paths = append(paths, rel)
		return err
	})
	must(t, err)
	return paths
}
