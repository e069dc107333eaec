package storage_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

func TestMemoryEngineConformance(t *testing.T) {
	storagetest.Run(t, storagetest.Harness{
		New: func(testing.TB) storage.Engine { return storage.NewMemoryEngine() },
		OpenCheckpoint: func(t testing.TB, dir string) storage.Engine {
			e, err := storage.OpenMemoryCheckpoint(dir)
			if err != nil {
				t.Fatal(err)
			}
			return e
		},
	})
}

// checkpointFile writes a small checkpoint and returns its file's path and
// bytes.
func checkpointFile(t *testing.T) (string, []byte) {
	t.Helper()
	e := storage.NewMemoryEngine()
	defer e.Close()
	s, err := storage.NewTenantScope(uuid.UUID{15: 1}, uuid.UUID{15: 2})
	if err != nil {
		t.Fatal(err)
	}
	var b storage.Batch
	b.Put(storage.NodeVersionKey(s, uuid.UUID{15: 3}, 1, 2), []byte("node"))
	b.Put(storage.NodeVersionKey(s, uuid.UUID{15: 4}, 1, 2), nil)
	b.Put(storage.TraceKey(s, uuid.UUID{15: 5}), []byte("trace"))
	if err := e.Write(&b); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "checkpoint")
	if err := e.Checkpoint(dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("checkpoint directory holds %d entries, want the checkpoint file alone", len(entries))
	}
	path := filepath.Join(dir, entries[0].Name())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// openWith rewrites the checkpoint file with data and opens it.
func openWith(t *testing.T, path string, data []byte) error {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := storage.OpenMemoryCheckpoint(filepath.Dir(path))
	if err == nil {
		e.Close()
	}
	return err
}

// isCheckpointError reports whether err is one of the typed checkpoint
// errors.
func isCheckpointError(err error) bool {
	return errors.Is(err, storage.ErrNotCheckpoint) || errors.Is(err, storage.ErrCheckpointVersion) ||
		errors.Is(err, storage.ErrCheckpointCorrupt)
}

// TestMemoryCheckpointDamage damages a checkpoint file at every byte (a
// bit flipped, the file cut there) and appends to it, and demands a typed
// error every time: never a panic, never a silently different store.
func TestMemoryCheckpointDamage(t *testing.T) {
	path, good := checkpointFile(t)
	if err := openWith(t, path, good); err != nil {
		t.Fatalf("the undamaged checkpoint: %v", err)
	}
	for i := range good {
		data := append([]byte(nil), good...)
		data[i] ^= 1 << (i % 8)
		if err := openWith(t, path, data); !isCheckpointError(err) {
			t.Fatalf("byte %d bit %d flipped: %v, want a typed checkpoint error", i, i%8, err)
		}
	}
	for n := range len(good) {
		if err := openWith(t, path, good[:n]); !isCheckpointError(err) {
			t.Fatalf("truncated to %d bytes: %v, want a typed checkpoint error", n, err)
		}
	}
	if err := openWith(t, path, append(good[:len(good):len(good)], 0)); !errors.Is(err, storage.ErrCheckpointCorrupt) {
		t.Fatalf("a byte appended: %v, want ErrCheckpointCorrupt", err)
	}
}

func TestMemoryCheckpointErrors(t *testing.T) {
	path, good := checkpointFile(t)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"empty file", nil, storage.ErrNotCheckpoint},
		{"other magic", append([]byte("NOTTELHA"), good[8:]...), storage.ErrNotCheckpoint},
		{"future version", append(append([]byte("TELHAMEM"), 0, 0, 0, 2), good[12:]...), storage.ErrCheckpointVersion},
		{"header only", good[:20], storage.ErrCheckpointCorrupt},
		{"last byte flipped", append(good[:len(good)-1:len(good)-1], good[len(good)-1]^1), storage.ErrCheckpointCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := openWith(t, path, tc.data); !errors.Is(err, tc.want) {
				t.Errorf("OpenMemoryCheckpoint = %v, want %v", err, tc.want)
			}
		})
	}

	t.Run("missing directory", func(t *testing.T) {
		_, err := storage.OpenMemoryCheckpoint(filepath.Join(t.TempDir(), "absent"))
		if !errors.Is(err, storage.ErrNotCheckpoint) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("OpenMemoryCheckpoint = %v, want ErrNotCheckpoint and fs.ErrNotExist", err)
		}
	})
	t.Run("directory without a checkpoint", func(t *testing.T) {
		if _, err := storage.OpenMemoryCheckpoint(t.TempDir()); !errors.Is(err, storage.ErrNotCheckpoint) {
			t.Errorf("OpenMemoryCheckpoint = %v, want ErrNotCheckpoint", err)
		}
	})
	t.Run("existing directory", func(t *testing.T) {
		e := storage.NewMemoryEngine()
		defer e.Close()
		if err := e.Checkpoint(t.TempDir()); !errors.Is(err, fs.ErrExist) {
			t.Errorf("Checkpoint into an existing directory = %v, want fs.ErrExist", err)
		}
	})
}

// TestMemoryCheckpointBadRow opens checkpoints whose checksum is right but
// one of whose rows holds a key the key authority could not have built:
// each must be refused when it is opened, with the row named, and not
// accepted to fail a later sweep.
func TestMemoryCheckpointBadRow(t *testing.T) {
	path, good := checkpointFile(t)
	// The first row is a node_versions key: family 1 byte, length 4
	// bytes, then the key, after the 20-byte header.
	const keyAt = 20 + 1 + 4
	tests := []struct {
		name  string
		patch func(key []byte)
		want  error
	}{
		{"half-nil scope", func(key []byte) { clear(key[16:storage.ScopeLen]) }, storage.ErrHalfNilScope},
		{"system scope in node_versions", func(key []byte) { clear(key[:storage.ScopeLen]) }, storage.ErrNilScope},
	}
	for _, tc := range tests {
		data := append([]byte(nil), good...)
		tc.patch(data[keyAt : keyAt+storage.VersionKeyLen])
		body := data[:len(data)-4]
		binary.BigEndian.PutUint32(data[len(body):], crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
		err := openWith(t, path, data)
		if !errors.Is(err, storage.ErrCheckpointCorrupt) || !errors.Is(err, storage.ErrCorrupt) || !errors.Is(err, tc.want) {
			t.Errorf("%s: OpenMemoryCheckpoint = %v, want ErrCheckpointCorrupt, ErrCorrupt and %v", tc.name, err, tc.want)
		} else if !strings.Contains(err.Error(), "row 0 (node_versions") {
			t.Errorf("%s: %v does not name the row", tc.name, err)
		}
	}
}
