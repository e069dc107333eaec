package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/temporal"
)

// erasedStore makes the marker store with its checkpoint, erases the
// marked tenant, closes the store and returns its directory, the
// checkpoint and the ledger's entries.
func erasedStore(t *testing.T) (dir, ckpt string, entries []ledger.Entry) {
	t.Helper()
	base := t.TempDir()
	dir, ckpt = filepath.Join(base, "store"), filepath.Join(base, "ckpt")
	e, _, erased := markerStore(t, dir, ckpt)
	_, err := EraseTenant(e, erased, EraseOptions{})
	mustDo(t, err)
	entries, err = LedgerEntries(e)
	mustDo(t, err)
	mustDo(t, e.Close())
	return dir, ckpt, entries
}

// TestRestoreRefusesOverlap points a restore at directories it must not
// use: the new store inside the checkpoint (directly and through a link),
// the checkpoint itself, a checkpoint that is a restore's work directory
// (the work directory of this very restore, and one inside it), a
// directory that is no store (/proc/self), and a checkpoint holding a
// FIFO. Each is ErrRestoreTarget, and nothing is written: the checkpoint
// is byte for byte what it was and no store or work directory appears.
func TestRestoreRefusesOverlap(t *testing.T) {
	dir, ckpt, entries := erasedStore(t)
	base := filepath.Dir(dir)
	link := filepath.Join(base, "link")
	mustDo(t, os.Symlink(ckpt, link))
	snap := filepath.Join(base, "snap")
	mustDo(t, os.CopyFS(snap+restoringSuffix, os.DirFS(ckpt)))
	nested := filepath.Join(base, "nested")
	mustDo(t, os.CopyFS(filepath.Join(nested+restoringSuffix, "ckpt"), os.DirFS(ckpt)))
	withFIFO := filepath.Join(base, "fifo-ckpt")
	mustDo(t, os.CopyFS(withFIFO, os.DirFS(ckpt)))
	mustDo(t, syscall.Mkfifo(filepath.Join(withFIFO, "000999.log"), 0o600))
	withFIFOTable := filepath.Join(base, "fifo-sst-ckpt")
	mustDo(t, os.CopyFS(withFIFOTable, os.DirFS(ckpt)))
	mustDo(t, syscall.Mkfifo(filepath.Join(withFIFOTable, "000998.sst"), 0o600))

	for _, c := range []struct{ name, from, to string }{
		{"the new store inside the checkpoint", ckpt, filepath.Join(ckpt, "restored")},
		{"the new store inside the checkpoint through a link", ckpt, filepath.Join(link, "restored")},
		{"the checkpoint as the new store", ckpt, ckpt},
		{"the checkpoint as the work directory", snap + restoringSuffix, snap},
		{"the checkpoint inside the work directory", filepath.Join(nested+restoringSuffix, "ckpt"), nested},
		{"a directory that is no store", "/proc/self", filepath.Join(base, "proc")},
		{"a checkpoint holding a FIFO log", withFIFO, filepath.Join(base, "fifo-restored")},
		{"a checkpoint holding a FIFO table file", withFIFOTable, filepath.Join(base, "fifo-sst-restored")},
	} {
		files := storagetest.HashFiles(t, c.from)
		_, err := Restore(c.from, c.to, entries, RestoreOptions{})
		if !errors.Is(err, ErrRestoreTarget) {
			t.Errorf("%s: Restore = %v, want ErrRestoreTarget", c.name, err)
		}
		if c.from != "/proc/self" {
			files.Unchanged(t, c.name, c.from)
		}
		if c.to != c.from && c.to != ckpt {
			for _, p := range []string{c.to, c.to + restoringSuffix} {
				if _, err := os.Lstat(p); err == nil && p != c.from && filepath.Dir(c.from) != p {
					t.Errorf("%s: the refused restore left %s", c.name, p)
				}
			}
		}
	}
	for _, c := range []struct{ name, ledger string }{
		{"the checkpoint", ckpt},
		{"a file inside the checkpoint", filepath.Join(ckpt, "CURRENT")},
		{"the checkpoint through a link", link},
	} {
		if err := CheckLedgerPath(c.ledger, ckpt); !errors.Is(err, ErrRestoreTarget) {
			t.Errorf("a ledger at %s: CheckLedgerPath = %v, want ErrRestoreTarget", c.name, err)
		}
	}
	if err := CheckLedgerPath(dir, ckpt); err != nil {
		t.Errorf("the live store as the ledger: %v", err)
	}
}

// TestReadLedgerOfAStoreWritesNothing reads the ledger of a store's
// directory and of its checkpoint: both read read-only, every file the
// same before and after.
func TestReadLedgerOfAStoreWritesNothing(t *testing.T) {
	dir, ckpt, entries := erasedStore(t)
	for _, d := range []string{dir, ckpt} {
		files := storagetest.HashFiles(t, d)
		got, err := ReadLedger(d)
		mustDo(t, err)
		if d == dir && len(got) != len(entries) {
			t.Errorf("the ledger of the store holds %d entries, want %d", len(got), len(entries))
		}
		files.Unchanged(t, "ReadLedger of "+d, d)
	}
}

// TestRestoreRefusesForeignLedger restores a checkpoint of one store with
// the ledger of another (a second deployment that erased a tenant of the
// same scope), and with entries that name no deployment: both are
// ErrForeignLedger and make no store, unless RestoreOptions.ForeignLedger
// asks for them.
func TestRestoreRefusesForeignLedger(t *testing.T) {
	_, ckpt, own := erasedStore(t)
	_, _, foreign := erasedStore(t)
	base := t.TempDir()
	unnamed := append([]ledger.Entry(nil), own...)
	for i := range unnamed {
		unnamed[i].Deployment = uuid.Nil
	}
	for name, entries := range map[string][]ledger.Entry{"another deployment's": foreign, "unnamed": unnamed} {
		files := storagetest.HashFiles(t, ckpt)
		to := filepath.Join(base, "refused")
		if _, err := Restore(ckpt, to, entries, RestoreOptions{}); !errors.Is(err, ErrForeignLedger) {
			t.Errorf("%s entries: Restore = %v, want ErrForeignLedger", name, err)
		}
		for _, p := range []string{to, to + restoringSuffix} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s entries: the refused restore left %s", name, p)
			}
		}
		files.Unchanged(t, name, ckpt)
	}
	res, err := Restore(ckpt, filepath.Join(base, "asked"), foreign, RestoreOptions{ForeignLedger: true})
	mustDo(t, err)
	if len(res.Replayed) != len(foreign) {
		t.Errorf("asked for, %d of %d foreign entries replayed", len(res.Replayed), len(foreign))
	}
	res, err = Restore(ckpt, filepath.Join(base, "own"), own, RestoreOptions{})
	mustDo(t, err)
	if len(res.Replayed) != len(own) {
		t.Errorf("%d of %d own entries replayed", len(res.Replayed), len(own))
	}
}

// TestVerifyReplayedRefusesRowsLeft checks the verification after replay
// on a store where the erasure did not happen: a tenant entry whose
// tenant still holds rows, and an entity entry whose node is still
// there, are each ErrBadLedger.
func TestVerifyReplayedRefusesRowsLeft(t *testing.T) {
	e := storagetest.OpenRocksDB(t, filepath.Join(t.TempDir(), "store"))
	s := storagetest.TenantScope(t)
	node := storagetest.ID(7)
	_, err := temporal.Open(e, temporal.Options{}).AssertNode(s, temporal.NodeFact{ID: node, Valid: temporal.Interval{Start: 0, End: temporal.Forever},
		Props: temporal.Properties{"name": temporal.String("kept")}})
	mustDo(t, err)
	tenant, err := ledger.NewEntry(ledger.KindTenant, s, uuid.Nil)
	mustDo(t, err)
	for _, r := range storage.TenantRanges(s) {
		tenant.Add(r, 0, 0)
	}
	if err := verifyReplayed(e, tenant); !errors.Is(err, ErrBadLedger) {
		t.Errorf("a tenant entry whose tenant holds rows: %v, want ErrBadLedger", err)
	}
	entity, err := ledger.NewEntry(ledger.KindEntity, s, node)
	mustDo(t, err)
	if err := verifyReplayed(e, entity); !errors.Is(err, ErrBadLedger) {
		t.Errorf("an entity entry whose node remains: %v, want ErrBadLedger", err)
	}
	if counts, err := Verify(e, s); err != nil || countOf(counts) == 0 {
		t.Errorf("the verification changed the tenant: %d rows, %v", countOf(counts), err)
	}
}
