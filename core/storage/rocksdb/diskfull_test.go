//go:build linux

package rocksdb

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// mountTmpfs mounts a tmpfs of size at dir, unmounted when the test ends.
// It needs root (CI runs as root).
func mountTmpfs(t *testing.T, dir, size string) error {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		return err
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return nil
}

// growTmpfs makes the tmpfs at dir size bytes: space freed.
func growTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, "size="+size); err != nil {
		t.Fatal(err)
	}
}

// TestDiskFull fills stores on tmpfs mounts from 16 KiB to 1 MiB, where
// librocksdb 7.8 used to abort the process, and demands typed errors: a
// create that does not fit fails with storage.ErrNoSpace and leaves
// nothing; a store that fills refuses writes with storage.ErrNoSpace, never
// another error, keeps serving reads, closes, and reopens once space is
// freed holding every acknowledged write.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	for _, size := range []string{"16k", "64k", "256k", "1m"} {
		for _, syncWrites := range []bool{false, true} {
			name := fmt.Sprintf("%s/sync=%t", size, syncWrites)
			t.Run(name, func(t *testing.T) {
				mnt := filepath.Join(base, size+fmt.Sprint(syncWrites))
				if err := mountTmpfs(t, mnt, size); err != nil {
					t.Skipf("cannot mount a tmpfs here (root is needed): %v", err)
				}
				fillDevice(t, mnt, syncWrites)
			})
		}
	}
}

// noSpace fails the test unless err is nil or storage.ErrNoSpace.
func noSpace(t *testing.T, what string, err error) bool {
	t.Helper()
	if err != nil && !errors.Is(err, storage.ErrNoSpace) {
		t.Fatalf("%s on a full device: %v, want storage.ErrNoSpace", what, err)
	}
	return err == nil
}

func fillDevice(t *testing.T, mnt string, syncWrites bool) {
	cfg := Config{Path: filepath.Join(mnt, "store"), CreateIfMissing: true, SyncWrites: syncWrites, MemtableSize: 64 << 10}
	e, err := Open(cfg)
	if !noSpace(t, "create", err) {
		if entries, _ := os.ReadDir(mnt); len(entries) != 0 {
			t.Fatalf("a create that failed left %d entries behind", len(entries))
		}
		return
	}
	rng := rand.New(rand.NewPCG(1, 2))
	s := newScope(t)
	acked := make(map[storage.Key][]byte)
	full := 0
	for i := 0; full < 50; i++ {
		k := storage.NodeVersionKey(s, uuid.UUID{0: byte(i >> 8), 1: byte(i), 15: 1}, 0, 0)
		v := make([]byte, 1000)
		for j := range v {
			v[j] = byte(rng.Uint32()) // incompressible
		}
		var err error
		switch i % 4 {
		case 0:
			err = e.Put(k, v)
		case 1:
			var b storage.Batch
			b.Put(k, v)
			err = e.WriteDurable(&b)
		case 2:
			var b storage.Batch
			b.Put(k, v)
			err = e.Write(&b)
		case 3:
			dir := filepath.Join(mnt, fmt.Sprintf("checkpoint-%d", i))
			err = e.Checkpoint(dir)
			if err != nil {
				if _, statErr := os.Stat(dir); statErr == nil {
					t.Errorf("a checkpoint that failed left %s", dir)
				}
			}
			noSpace(t, "Checkpoint", err)
			continue
		}
		if noSpace(t, "a write", err) {
			acked[k] = v
		} else {
			full++
		}
	}
	for k, v := range acked {
		if got, err := e.Get(k); err != nil || string(got) != string(v) {
			t.Fatalf("read on a full device: %v", err)
		}
	}
	noSpace(t, "Close", e.Close())
	if e, err := Open(Config{Path: cfg.Path, MemtableSize: cfg.MemtableSize}); noSpace(t, "reopen", err) {
		noSpace(t, "Close after reopen", e.Close())
	}
	growTmpfs(t, mnt, "64m")
	e = openTest(t, Config{Path: cfg.Path, MemtableSize: cfg.MemtableSize})
	for k, v := range acked {
		if got, err := e.Get(k); err != nil || string(got) != string(v) {
			t.Fatalf("after space was freed, acknowledged %s: %v", k, err)
		}
	}
	t.Logf("%d writes acknowledged before the device filled", len(acked))
}
