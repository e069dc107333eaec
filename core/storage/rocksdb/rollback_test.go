package rocksdb

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRollbackRestores keeps a store's files, changes them as RocksDB's
// repairer does (a file replaced, one removed, one moved into lost/, new
// ones made), and puts the store back: every kept file is back with its
// bytes, and nothing the change made is left.
func TestRollbackRestores(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "store")
	if err := os.MkdirAll(filepath.Join(path, "lost"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"CURRENT": "MANIFEST-000001\n", "MANIFEST-000001": "m1", "000003.log": "log", "lost/000002.log": "old"} {
		writeFile(t, filepath.Join(path, name), data)
	}
	rb, err := keepStore(path)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(path, "CURRENT.tmp"), "MANIFEST-000009\n")
	if err := os.Rename(filepath.Join(path, "CURRENT.tmp"), filepath.Join(path, "CURRENT")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(path, "MANIFEST-000009"), "m9")
	writeFile(t, filepath.Join(path, "000010.sst"), "table")
	if err := os.Rename(filepath.Join(path, "000003.log"), filepath.Join(path, "lost", "000003.log")); err != nil {
		t.Fatal(err)
	}
	remove(t, filepath.Join(path, "MANIFEST-000001"))

	if err := rb.restore(); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"CURRENT": "MANIFEST-000001\n", "MANIFEST-000001": "m1", "000003.log": "log", "lost/000002.log": "old"}
	got := make(map[string]string)
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(path, p)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("after the rollback the store holds %v, want %v", got, want)
	}
	for name, data := range want {
		if got[name] != data {
			t.Errorf("%s = %q after the rollback, want %q", name, got[name], data)
		}
	}
	if _, err := os.Stat(rb.dir); !os.IsNotExist(err) {
		t.Errorf("the kept links remain in %s: %v", rb.dir, err)
	}
}
