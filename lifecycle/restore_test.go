package lifecycle

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/core/storage/system/tenants"
)

// erasedMarker is written into the tenant that the tests erase, and must
// be found in no file of the store afterwards.
const erasedMarker = "ERASE-ME-7f3c9a1e-marker"

// markerStore makes a RocksDB store in dir with a kept and an erased
// tenant, rows of the erased one in table files, in a write-ahead log and
// in the memtable, and a checkpoint in ckpt taken before any erasure.
func markerStore(t *testing.T, dir, ckpt string) (e *rocksdb.Engine, kept, erased storage.TenantScope) {
	t.Helper()
	scopes := storagetest.TenantScopes(t, 2)
	kept, erased = scopes[0], scopes[1]
	e = storagetest.OpenRocksDB(t, dir)
	fillMarked(t, e, kept, "kept", "KEPT", 200)
	fillMarked(t, e, erased, "erased", erasedMarker, 200)
	mustDo(t, e.Close())
	e = storagetest.OpenRocksDB(t, dir)
	// More rows after the reopen: in the log and the memtable only.
	var b storage.Batch
	b.Put(storage.TraceKey(erased, storagetest.ID(999)), []byte(erasedMarker+" in the log"))
	mustDo(t, e.WriteDurable(&b))
	if len(grepDir(t, dir, erasedMarker)) == 0 {
		t.Fatal("the marker is in no file before the erasure: the test proves nothing")
	}
	checkpoint(t, e, ckpt)
	return e, kept, erased
}

// TestEraseLeavesNoBytes erases a tenant on RocksDB and searches every
// file of the store for its marker: none may hold it, while the engine is
// open and after it is closed. Then it restores the checkpoint taken
// before the erasure with the store's ledger: the restored store holds
// the marker in no file either, the kept tenant's rows are identical, and
// the registry says erased.
func TestEraseLeavesNoBytes(t *testing.T) {
	base := t.TempDir()
	dir, ckpt, restored := filepath.Join(base, "store"), filepath.Join(base, "ckpt"), filepath.Join(base, "restored")
	e, kept, erased := markerStore(t, dir, ckpt)
	before := dump(t, e, kept)
	_, err := EraseTenant(e, erased, EraseOptions{})
	mustDo(t, err)
	if hits := grepDir(t, dir, erasedMarker); len(hits) > 0 {
		t.Errorf("after the erasure, the marker is in %v", hits)
	}
	if !bytes.Equal(dump(t, e, kept), before) {
		t.Error("the kept tenant changed")
	}
	var file bytes.Buffer
	if _, err := ExportLedger(e, &file); err != nil {
		t.Fatal(err)
	}
	mustDo(t, e.Close())
	if hits := grepDir(t, dir, erasedMarker); len(hits) > 0 {
		t.Errorf("after Close, the marker is in %v", hits)
	}
	if len(grepDir(t, ckpt, erasedMarker)) == 0 {
		t.Fatal("the checkpoint does not hold the marker: the restore proves nothing")
	}

	ledgerFile := filepath.Join(base, "ledger")
	mustDo(t, os.WriteFile(ledgerFile, file.Bytes(), 0o600))
	for _, source := range []string{ledgerFile, dir} {
		entries, err := ReadLedger(source)
		mustDo(t, err)
		res, err := Restore(ckpt, restored, entries, RestoreOptions{})
		mustDo(t, err)
		if len(res.Replayed) != 1 {
			t.Errorf("restore replayed %d entries, want 1", len(res.Replayed))
		}
		if hits := grepDir(t, restored, erasedMarker); len(hits) > 0 {
			t.Errorf("after a restore with the ledger of %s, the marker is in %v", source, hits)
		}
		r := storagetest.OpenRocksDB(t, restored)
		if !bytes.Equal(dump(t, r, kept), before) {
			t.Error("the kept tenant differs in the restored store")
		}
		if counts, err := Verify(r, erased); err != nil || countOf(counts) != 0 {
			t.Errorf("the restored store holds %d rows of the erased tenant (%v)", countOf(counts), err)
		}
		if tn, err := tenants.Get(r, erased); err != nil || tn.State != tenants.Erased {
			t.Errorf("restored registry: %+v, %v; want erased", tn, err)
		}
		mustDo(t, r.Close())
		if hits := grepDir(t, restored, erasedMarker); len(hits) > 0 {
			t.Errorf("after the restored store closed, the marker is in %v", hits)
		}
		mustDo(t, os.RemoveAll(restored))
	}
	if len(grepDir(t, ckpt, erasedMarker)) == 0 {
		t.Error("the restore changed the checkpoint")
	}
	if _, err := Restore(ckpt, dir, nil, RestoreOptions{}); !errors.Is(err, ErrRestoreTarget) {
		t.Errorf("restore onto an existing store: %v, want ErrRestoreTarget", err)
	}
}

func countOf(counts []FamilyCount) (n uint64) {
	for _, c := range counts {
		n += c.Rows
	}
	return n
}

// TestRestoreCrashAtEveryStep fails a restore after each of its steps: no
// store may exist at the new path until the last, and a second Restore
// completes.
func TestRestoreCrashAtEveryStep(t *testing.T) {
	errCrash := errors.New("injected crash")
	base := t.TempDir()
	dir, ckpt := filepath.Join(base, "store"), filepath.Join(base, "ckpt")
	e, kept, erased := markerStore(t, dir, ckpt)
	before := dump(t, e, kept)
	_, err := EraseTenant(e, erased, EraseOptions{})
	mustDo(t, err)
	entries, err := LedgerEntries(e)
	mustDo(t, err)
	mustDo(t, e.Close())
	for _, step := range []EraseStep{StepRestoreCopy, StepRestoreReplay, StepRestoreCompact} {
		t.Run(step.String(), func(t *testing.T) {
			restored := filepath.Join(t.TempDir(), "restored")
			afterStep = func(s EraseStep) error {
				if s == step {
					return errCrash
				}
				return nil
			}
			_, err := Restore(ckpt, restored, entries, RestoreOptions{})
			afterStep = nil
			if !errors.Is(err, errCrash) {
				t.Fatalf("restore crashed after %s: %v", step, err)
			}
			if _, err := os.Stat(restored); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("a restore interrupted after %s left a store at the new path: %v", step, err)
			}
			if _, err := Restore(ckpt, restored, entries, RestoreOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(restored + restoringSuffix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the work directory is still there: %v", err)
			}
			r := storagetest.OpenRocksDB(t, restored)
			if !bytes.Equal(dump(t, r, kept), before) {
				t.Error("the kept tenant differs")
			}
			if got, err := ledger.Get(r, entries[0].ID); err != nil || got.ID != entries[0].ID {
				t.Errorf("the restored ledger lacks the replayed entry: %v", err)
			}
			if hits := grepDir(t, restored, erasedMarker); len(hits) > 0 {
				t.Errorf("the marker is in %v", hits)
			}
		})
	}
}
