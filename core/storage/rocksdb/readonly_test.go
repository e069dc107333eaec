package rocksdb

import (
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"telha.dev/core/storage"
)

// hashTree returns the SHA-256 of every file under dir, by path.
func hashTree(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	sums := make(map[string][32]byte)
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		sums[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// TestReadOnly opens a closed store and a crashed one (its rows in the
// log) read-only: every row reads, every write, compaction and checkpoint
// is ErrReadOnly, a second read-only open works beside it, and no file of
// the store is changed, created or removed; a read-write open works beside
// a read-only one (it takes no lock).
func TestReadOnly(t *testing.T) {
	t.Parallel()
	for name, path := range map[string]string{"closed": closedStore(t), "crashed": crashedStore(t)} {
		before := hashTree(t, path)
		e, err := Open(Config{Path: path, ReadOnly: true})
		if err != nil {
			t.Fatalf("%s: read-only Open: %v", name, err)
		}
		k := storage.NodeVersionKey(newScope(t), [16]byte{1}, 0, 0)
		var b storage.Batch
		b.Put(k, []byte("x"))
		for op, err := range map[string]error{
			"put":           e.Put(k, []byte("x")),
			"delete":        e.Delete(k),
			"write":         e.Write(&b),
			"write durable": e.WriteDurable(&b),
			"delete range":  e.DeleteRange(storage.TenantAll(newScope(t), storage.NodeVersions)),
			"compact":       e.CompactRanges([]storage.ScanRange{storage.TenantAll(newScope(t), storage.NodeVersions)}),
			"checkpoint":    e.Checkpoint(filepath.Join(t.TempDir(), "ckpt")),
		} {
			if !errors.Is(err, ErrReadOnly) {
				t.Errorf("%s: %s on a read-only engine = %v, want ErrReadOnly", name, op, err)
			}
		}
		second, err := Open(Config{Path: path, ReadOnly: true})
		if err != nil {
			t.Errorf("%s: a second read-only Open: %v", name, err)
		} else if err := second.Close(); err != nil {
			t.Error(err)
		}
		if n := readAll(t, e, true); n.present != faultBatches { // closes e
			t.Errorf("%s: %d batches read-only, want %d", name, n.present, faultBatches)
		}
		after := hashTree(t, path)
		for f, sum := range before {
			if got, ok := after[f]; !ok || got != sum {
				t.Errorf("%s: %s changed or removed by a read-only open", name, f)
			}
		}
		for f := range after {
			if _, ok := before[f]; !ok {
				t.Errorf("%s: %s created by a read-only open", name, f)
			}
		}
		reader, err := Open(Config{Path: path, ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		writer, err := Open(Config{Path: path})
		if err != nil {
			t.Errorf("%s: a read-write Open beside a read-only one: %v", name, err)
		} else if err := writer.Close(); err != nil {
			t.Error(err)
		}
		if err := reader.Close(); err != nil {
			t.Error(err)
		}
	}
	if _, err := Open(Config{Path: t.TempDir(), ReadOnly: true, CreateIfMissing: true}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("ReadOnly with CreateIfMissing = %v, want ErrBadConfig", err)
	}
	if _, err := Open(Config{Path: filepath.Join(t.TempDir(), "none"), ReadOnly: true}); !errors.Is(err, ErrNotExist) {
		t.Errorf("read-only Open of a missing store = %v, want ErrNotExist", err)
	}
}
