package rocksdb

import (
	"errors"
	"path/filepath"
	"testing"
)

// TestRepairHealthy repairs a store that needs nothing: Repair finds no
// damage, drops nothing, and the store opens with every batch.
func TestRepairHealthy(t *testing.T) {
	t.Parallel()
	for name, path := range map[string]string{"closed": closedStore(t), "crashed": crashedStore(t)} {
		rep, err := Repair(path)
		if err != nil {
			t.Fatalf("%s: Repair: %v", name, err)
		}
		if rep.Damage != nil || rep.DroppedBatches != 0 || rep.DroppedWrites != 0 || rep.Rebuilt || rep.Sequence != 4*faultBatches {
			t.Errorf("%s: Repair of a healthy store reports %+v", name, rep)
		}
		e, err := Open(Config{Path: path, MemtableSize: testMemtableSize})
		if err != nil {
			t.Fatalf("%s: Open after Repair: %v", name, err)
		}
		if n := readAll(t, e, true); n.present != faultBatches {
			t.Errorf("%s: %d batches after Repair, want %d", name, n.present, faultBatches)
		}
	}
}

// TestRepairRefuses checks that Repair refuses what is not a store of its
// own to repair, with the errors Open uses, and touches nothing.
func TestRepairRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeFile(t, file, "not a store")
	held := newTestEngine(t)
	for _, tt := range []struct {
		name, path string
		want       error
	}{
		{"missing", filepath.Join(dir, "missing"), ErrNotExist},
		{"file", file, ErrNotStore},
		{"NUL byte", filepath.Join(dir, "a\x00b"), ErrBadPath},
		{"empty path", "", ErrBadPath},
		{"held open", held.path, ErrLocked},
	} {
		if _, err := Repair(tt.path); !errors.Is(err, tt.want) {
			t.Errorf("Repair of a %s path = %v, want %v", tt.name, err, tt.want)
		}
	}
}
