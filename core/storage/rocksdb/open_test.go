package rocksdb

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// rawStore creates a RocksDB store at path holding exactly the families
// names (plus "default"), without Telha's options.
func rawStore(t *testing.T, path string, names []string) {
	t.Helper()
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	opts.SetCreateIfMissing(true)
	opts.SetCreateIfMissingColumnFamilies(true)
	names = append([]string{defaultFamily}, names...)
	familyOpts := make([]*grocksdb.Options, len(names))
	for i := range familyOpts {
		familyOpts[i] = opts
	}
	db, handles, err := grocksdb.OpenDbColumnFamilies(opts, path, names, familyOpts)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range handles {
		h.Destroy()
	}
	db.Close()
}

// familyNames returns the names of storage.Families except those in skip.
func familyNames(skip ...string) []string {
	var names []string
	for _, cf := range storage.Families() {
		if !slices.Contains(skip, cf.String()) {
			names = append(names, cf.String())
		}
	}
	return names
}

// listFamilies returns the families recorded in the store at path.
func listFamilies(t *testing.T, path string) []string {
	t.Helper()
	opts := grocksdb.NewDefaultOptions()
	defer opts.Destroy()
	names, err := grocksdb.ListColumnFamilies(opts, path)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		create  bool
		want    error
		mention string // a word the message must hold
	}{
		{
			name:    "missing directory",
			prepare: func(*testing.T, string) {},
			want:    ErrNotExist,
		},
		{
			name:    "empty directory",
			prepare: func(t *testing.T, path string) { mkdir(t, path) },
			want:    ErrNotExist,
		},
		{
			name: "file",
			prepare: func(t *testing.T, path string) {
				writeFile(t, path, "not a directory")
			},
			create: true,
			want:   ErrNotStore,
		},
		{
			name: "foreign directory",
			prepare: func(t *testing.T, path string) {
				mkdir(t, path)
				writeFile(t, filepath.Join(path, "notes.txt"), "hello")
			},
			create: true,
			want:   ErrNotStore,
		},
		{
			name: "corrupt store",
			prepare: func(t *testing.T, path string) {
				mkdir(t, path)
				writeFile(t, filepath.Join(path, "CURRENT"), "MANIFEST-000042\n")
			},
			create: true,
			want:   ErrNotStore,
		},
		{
			name:    "rocksdb store of another application",
			prepare: func(t *testing.T, path string) { rawStore(t, path, []string{"users", "orders"}) },
			create:  true,
			want:    ErrNotStore,
		},
		{
			name:    "missing family",
			prepare: func(t *testing.T, path string) { rawStore(t, path, familyNames("spans")) },
			create:  true,
			want:    ErrMissingFamily,
			mention: "spans",
		},
		{
			name: "unexpected family",
			prepare: func(t *testing.T, path string) {
				rawStore(t, path, append(familyNames(), "future_index"))
			},
			create:  true,
			want:    ErrUnexpectedFamily,
			mention: "future_index",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store")
			tt.prepare(t, path)
			before := dirContents(t, path)
			e, err := Open(Config{Path: path, CreateIfMissing: tt.create, MemtableSize: testMemtableSize})
			if err == nil {
				e.Close()
				t.Fatal("open succeeded")
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("open: %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("error %q does not name the path and %q", err, tt.mention)
			}
			if after := dirContents(t, path); !slices.Equal(before, after) {
				t.Errorf("open changed the directory: %v, then %v", before, after)
			}
		})
	}
}

func TestOpenMissingWrapsFS(t *testing.T) {
	_, err := Open(Config{Path: filepath.Join(t.TempDir(), "missing")})
	if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrNotExist) {
		t.Fatalf("open missing: %v, want ErrNotExist and fs.ErrNotExist", err)
	}
}

// TestOpenCreates covers the two places a store may be created, and a
// store's reopening without CreateIfMissing.
func TestOpenCreates(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty")
	mkdir(t, empty)
	for _, path := range []string{filepath.Join(t.TempDir(), "new"), empty} {
		cfg := Config{Path: path, CreateIfMissing: true, MemtableSize: testMemtableSize}
		e, err := Open(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		got := listFamilies(t, path)
		if want := append([]string{defaultFamily}, familyNames()...); !slices.Equal(got, want) {
			t.Fatalf("families %v, want %v", got, want)
		}
		cfg.CreateIfMissing = false
		openTest(t, cfg)
	}
}

// TestOpenLocked opens a store that is already open, in this process and
// in another: both must fail with ErrLocked and leave the holder working.
func TestOpenLocked(t *testing.T) {
	t.Run("same process", func(t *testing.T) {
		cfg := testConfig(t)
		e := openTest(t, cfg)
		if _, err := Open(cfg); !errors.Is(err, ErrLocked) {
			t.Fatalf("second open: %v, want ErrLocked", err)
		}
		if err := e.Put(nodeKey(newScope(t), [16]byte{1}, 1), []byte("x")); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		openTest(t, cfg)
	})
	t.Run("other process", func(t *testing.T) {
		cfg := createStore(t)
		c := startChild(t, "hold", cfg.Path, "")
		c.waitFor(t, "ready")
		_, err := Open(cfg)
		if !errors.Is(err, ErrLocked) {
			t.Errorf("open held by another process: %v, want ErrLocked", err)
		}
		if err := c.stdin.Close(); err != nil {
			t.Fatal(err)
		}
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("child: %v", err)
		}
		openTest(t, cfg)
	})
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dirContents lists the names under path, or nothing if it is missing or a
// file.
func dirContents(t *testing.T, path string) []string {
	t.Helper()
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestOpenBadPaths opens paths that cannot name a store: each fails with
// ErrBadPath, names the cause, and creates nothing, with or without
// CreateIfMissing. RocksDB would take a path with a NUL byte for the part
// before it.
func TestOpenBadPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeFile(t, file, "not a directory")
	for _, tt := range []struct {
		name, path string
	}{
		{"empty", ""},
		{"NUL byte", filepath.Join(dir, "store\x00tail")},
		{"NUL byte only", "\x00"},
		{"under a file", filepath.Join(file, "store")},
		{"deep under a file", filepath.Join(file, "a", "b", "store")},
	} {
		for _, create := range []bool{false, true} {
			before := dirContents(t, dir)
			e, err := Open(Config{Path: tt.path, CreateIfMissing: create, MemtableSize: testMemtableSize})
			if err == nil {
				e.Close()
				t.Fatalf("%s (create %t): open succeeded", tt.name, create)
			}
			if !errors.Is(err, ErrBadPath) {
				t.Errorf("%s (create %t): %v, want ErrBadPath", tt.name, create, err)
			}
			if after := dirContents(t, dir); !slices.Equal(before, after) {
				t.Errorf("%s (create %t): open changed the directory: %v, then %v", tt.name, create, before, after)
			}
		}
	}
}

// TestOpenVerifyKeys writes rows the key authority could not have built
// straight into RocksDB, as damage or a foreign writer would: Open with
// VerifyKeys refuses the store, naming the row; without it, the store opens.
func TestOpenVerifyKeys(t *testing.T) {
	s := newScope(t)
	tenantJob := storage.JobKey(s, storage.JobQueued, 0, 0, uuid.New()).Bytes()
	badState := slices.Clone(tenantJob)
	badState[storage.ScopeLen] = 0x7f
	for _, tt := range []struct {
		name string
		cf   int // index into the handles: 0 is RocksDB's default family
		key  []byte
		want error
	}{
		{"unknown job state", int(storage.Jobs), badState, storage.ErrUnknownKind},
		{"short key", int(storage.NodeVersions), tenantJob[:40], storage.ErrWrongLength},
		{"system key in node_versions", int(storage.NodeVersions), make([]byte, storage.VersionKeyLen), storage.ErrNilScope},
		{"row in the default family", 0, tenantJob, storage.ErrCorrupt},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t)
			e, err := Open(cfg)
			if err != nil {
				t.Fatal(err)
			}
			must(t, e.Put(storage.NodeVersionKey(s, uuid.New(), 1, 1), []byte("good")))
			must(t, e.db.PutCF(e.write, e.handles[tt.cf], tt.key, []byte("bad")))
			must(t, e.Close())
			cfg.CreateIfMissing = false
			cfg.VerifyKeys = true
			if e, err := Open(cfg); !errors.Is(err, storage.ErrCorrupt) || !errors.Is(err, tt.want) {
				if err == nil {
					e.Close()
				}
				t.Fatalf("Open with VerifyKeys = %v, want storage.ErrCorrupt and %v", err, tt.want)
			} else if !strings.Contains(err.Error(), fmt.Sprintf("%x", tt.key)) {
				t.Errorf("%v does not name the row %x", err, tt.key)
			}
			cfg.VerifyKeys = false
			e, err = Open(cfg)
			if err != nil {
				t.Fatalf("Open without VerifyKeys: %v", err)
			}
			must(t, e.Close())
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenBadConfig refuses a memtable so large that opening would allocate
// gigabytes of prefix blooms, and creates nothing.
func TestOpenBadConfig(t *testing.T) {
	cfg := testConfig(t)
	for _, size := range []uint64{MaxMemtableSize + 1, 1 << 62, 1<<64 - 1} {
		cfg.MemtableSize = size
		if e, err := Open(cfg); !errors.Is(err, ErrBadConfig) {
			if err == nil {
				e.Close()
			}
			t.Errorf("Open with MemtableSize %d = %v, want ErrBadConfig", size, err)
		}
	}
	if _, err := os.Stat(cfg.Path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused Open left %s: %v", cfg.Path, err)
	}
}
