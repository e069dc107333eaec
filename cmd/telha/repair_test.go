package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
)

// repairStore writes n durable batches into a new store and returns a copy
// of its directory taken while it was open, as a crash leaves it (the data
// in the write-ahead log), and the keys of the batches. The original is
// closed when the test ends.
func repairStore(t *testing.T, n int) (string, []storage.Key) {
	t.Helper()
	s := storagetest.TenantScope(t)
	dir := filepath.Join(t.TempDir(), "store")
	e := storagetest.OpenRocksDB(t, dir)
	var keys []storage.Key
	for i := range n {
		k := storage.NodeVersionKey(s, uuid.New(), storage.Timestamp(i), 0)
		var b storage.Batch
		b.Put(k, bytes.Repeat([]byte{'v'}, 100))
		if err := e.WriteDurable(&b); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	crashed := filepath.Join(t.TempDir(), "crashed")
	if err := os.CopyFS(crashed, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	return crashed, keys
}

// newestLog returns the store's write-ahead log with the most bytes.
func newestLog(t *testing.T, dir string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var best string
	var size int64
	for _, l := range logs {
		if info, err := os.Stat(l); err == nil && info.Size() > size {
			best, size = l, info.Size()
		}
	}
	if best == "" {
		t.Fatalf("no write-ahead log with data in %s", dir)
	}
	return best
}

func TestRepairCommand(t *testing.T) {
	t.Parallel()
	healthy, _ := repairStore(t, 10)
	damaged, keys := repairStore(t, 400)
	log := newestLog(t, damaged)
	info, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(log, info.Size()/2); err != nil {
		t.Fatal(err)
	}
	if _, err := rocksdb.Open(rocksdb.Config{Path: damaged}); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("Open of the damaged store = %v, want storage.ErrCorrupt", err)
	}
	held := filepath.Join(t.TempDir(), "held")
	storagetest.OpenRocksDB(t, held)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("not a store"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout []string // substrings
		wantStderr string   // substring of the one line on stderr
	}{
		{"healthy store", []string{"repair", "-data", healthy}, exitOK, []string{"no damage found; nothing dropped"}, ""},
		{"truncated log", []string{"repair", "-data", damaged}, exitOK,
			[]string{"damage: " + log, "dropped: 200 writes (sequence numbers 201 to 400), from " + log, "repaired; the store ends at sequence number 200"}, ""},
		{"repaired store", []string{"repair", "-data", damaged}, exitOK, []string{"no damage found"}, ""},
		{"missing -data", []string{"repair"}, exitUsage, nil, "missing -data DIR"},
		{"extra argument", []string{"repair", "-data", healthy, "now"}, exitUsage, nil, `unexpected argument "now"`},
		{"unknown flag", []string{"repair", "-force"}, exitUsage, nil, "flag provided but not defined: -force"},
		{"missing directory", []string{"repair", "-data", filepath.Join(t.TempDir(), "absent")}, exitUsage, nil, "no store at path"},
		{"a file", []string{"repair", "-data", file}, exitUsage, nil, "not a Telha store"},
		{"NUL byte", []string{"repair", "-data", "a\x00b"}, exitUsage, nil, "path cannot hold a store"},
		{"store in use", []string{"repair", "-data", held}, exitError, nil, "store locked by another open engine"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, &stdout, &stderr)
		if code != tt.wantCode {
			t.Errorf("%s: exit code %d, want %d (stderr %q)", tt.name, code, tt.wantCode, stderr.String())
		}
		for _, want := range tt.wantStdout {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%s: stdout %q does not contain %q", tt.name, stdout.String(), want)
			}
		}
		if tt.wantStderr != "" && (!strings.Contains(stderr.String(), tt.wantStderr) || strings.Count(stderr.String(), "\n") != 1) {
			t.Errorf("%s: stderr %q, want one line containing %q", tt.name, stderr.String(), tt.wantStderr)
		}
		if tt.wantStderr == "" && stderr.Len() != 0 {
			t.Errorf("%s: unexpected stderr %q", tt.name, stderr.String())
		}
	}

	// The repaired store opens, holding a prefix of the batches.
	r, err := rocksdb.Open(rocksdb.Config{Path: damaged})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	present := 0
	for i, k := range keys {
		_, err := r.Get(k)
		switch {
		case err == nil && present == i:
			present++
		case err == nil:
			t.Fatalf("batch %d is there after batch %d is not", i, present)
		case !errors.Is(err, storage.ErrNotFound):
			t.Fatal(err)
		}
	}
	if present == 0 || present == len(keys) {
		t.Errorf("%d of %d batches after repairing a log cut in half", present, len(keys))
	}
	t.Logf("%d of %d batches kept", present, len(keys))
}
