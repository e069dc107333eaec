package rocksdb

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// filesHolding returns the files of dir whose bytes hold marker.
func filesHolding(t *testing.T, dir, marker string) []string {
	t.Helper()
	var hits []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range entries {
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(marker)) {
			hits = append(hits, de.Name())
		}
	}
	return hits
}

// TestCompactRangesErasesBytes deletes a tenant whose rows are in table
// files, in an older write-ahead log and in the current one, compacts its
// ranges, and finds its marker in no file of the store; the other
// tenant's rows stay, and an open snapshot makes compaction refuse.
func TestCompactRangesErasesBytes(t *testing.T) {
	const marker = "COMPACT-ME-5e0d"
	cfg := testConfig(t)
	e := openTest(t, cfg)
	gone, kept := newScope(t), newScope(t)
	write := func(n int) {
		var b storage.Batch
		for i := range n {
			id := uuid.New()
			b.Put(storage.NodeVersionKey(gone, id, storage.Timestamp(i), 0), []byte(marker))
			b.Put(storage.TraceKey(gone, id), []byte(marker))
			b.Put(storage.NodeVersionKey(kept, id, storage.Timestamp(i), 0), []byte("kept"))
		}
		if err := e.WriteDurable(&b); err != nil {
			t.Fatal(err)
		}
	}
	write(500)
	if err := flushAll(e.db, e.handles); err != nil {
		t.Fatal(err)
	}
	write(50)
	// Flushing one family switches the log; the older one stays alive
	// with node rows of the tenant that only it holds.
	opts := grocksdb.NewDefaultFlushOptions()
	defer opts.Destroy()
	opts.SetWait(true)
	if err := e.db.FlushCF(e.families[storage.Traces], opts); err != nil {
		t.Fatal(err)
	}
	write(5)
	if len(filesHolding(t, cfg.Path, marker)) < 2 {
		t.Fatalf("the marker is in %v only: the test proves little", filesHolding(t, cfg.Path, marker))
	}
	var del storage.Batch
	storage.AddTenantDeletion(&del, gone)
	if err := e.WriteDurable(&del); err != nil {
		t.Fatal(err)
	}

	snap, err := e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.CompactRanges(storage.TenantRanges(gone)); !errors.Is(err, storage.ErrCompactIncomplete) {
		t.Errorf("compaction under an open snapshot: %v, want ErrCompactIncomplete", err)
	}
	if err := snap.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.CompactRanges(storage.TenantRanges(gone)); err != nil {
		t.Fatal(err)
	}
	if hits := filesHolding(t, cfg.Path, marker); len(hits) > 0 {
		t.Errorf("after compaction the marker is in %v", hits)
	}
	if got := len(collect(t, e, storage.TenantAll(kept, storage.NodeVersions))); got != 555 {
		t.Errorf("the kept tenant has %d rows, want 555", got)
	}
}
