package rocksdb

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

func TestPutGetDelete(t *testing.T) {
	e := newTestEngine(t)
	s := newScope(t)
	k := nodeKey(s, uuid.New(), 1)
	if _, err := e.Get(k); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("get absent: %v, want ErrNotFound", err)
	}
	if err := e.Put(k, []byte("v1")); err != nil {
		t.Fatal(err)
	}
	got, err := e.Get(k)
	if err != nil || string(got) != "v1" {
		t.Fatalf("get = %q, %v; want v1", got, err)
	}
	if err := e.Put(k, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Get(k); err != nil || len(got) != 0 {
		t.Fatalf("get empty value = %q, %v", got, err)
	}
	if err := e.Delete(k); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Get(k); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("get deleted: %v, want ErrNotFound", err)
	}
	// The same key bytes in another family are another key.
	if _, err := e.Get(storage.EdgeVersionKey(s, uuid.New(), 1, 1)); !errors.Is(err, storage.ErrNotFound) {
		t.Fatal(err)
	}
}

func TestScanOrderAndBounds(t *testing.T) {
	e := newTestEngine(t)
	a, b := newScope(t), newScope(t)
	id := uuid.New()
	var want [][]byte
	for _, s := range []storage.TenantScope{a, b} {
		for v := range 50 {
			k := nodeKey(s, id, v)
			if err := e.Put(k, []byte(fmt.Sprint(v))); err != nil {
				t.Fatal(err)
			}
			if s == a {
				want = append(want, k.Bytes())
			}
		}
		// A neighbouring entity and another family must stay outside.
		if err := e.Put(nodeKey(s, uuid.New(), 1), []byte("other")); err != nil {
			t.Fatal(err)
		}
		if err := e.Put(storage.EdgeVersionKey(s, id, 1, 1), []byte("edge")); err != nil {
			t.Fatal(err)
		}
	}
	rows := collect(t, e, storage.NodeHistory(a, id))
	if len(rows) != len(want) {
		t.Fatalf("got %d rows, want %d", len(rows), len(want))
	}
	slices.SortFunc(want, bytes.Compare)
	for i, kv := range rows {
		if !bytes.Equal(kv.Key, want[i]) {
			t.Fatalf("row %d: key %x, want %x", i, kv.Key, want[i])
		}
	}
	if n := len(collect(t, e, storage.TenantAll(a, storage.NodeVersions))); n != 51 {
		t.Fatalf("tenant all: %d rows, want 51", n)
	}
	if n := openCursors(e); n != 0 {
		t.Fatalf("%d cursors left open", n)
	}
}

// TestScanCopiesRows checks that rows stay intact after the iterator moves
// on and after the engine closes: they live in Go memory.
func TestScanCopiesRows(t *testing.T) {
	e := newTestEngine(t)
	s, id := putNode(t, e, 100, func(v int) []byte { return bytes.Repeat([]byte{byte(v)}, 100) })
	rows := collect(t, e, storage.NodeHistory(s, id))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, kv := range rows {
		v := kv.Value[0]
		if !bytes.Equal(kv.Value, bytes.Repeat([]byte{v}, 100)) || cap(kv.Key) != len(kv.Key) {
			t.Fatalf("row %x corrupted or key not capped", kv.Key)
		}
	}
}

func TestScanEndsCleanly(t *testing.T) {
	e := newTestEngine(t)
	s, id := putNode(t, e, 10, constValue)
	r := storage.NodeHistory(s, id)

	t.Run("break", func(t *testing.T) {
		for range e.Scan(r) {
			break
		}
		if n := openCursors(e); n != 0 {
			t.Fatalf("%d cursors open after break", n)
		}
	})
	t.Run("panic", func(t *testing.T) {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			for range e.Scan(r) {
				panic("body")
			}
		}()
		if n := openCursors(e); n != 0 {
			t.Fatalf("%d cursors open after panic", n)
		}
	})
	t.Run("write in body", func(t *testing.T) {
		n := 0
		for kv, err := range e.Scan(r) {
			if err != nil {
				t.Fatal(err)
			}
			// The scan sees the store as of its start.
			if err := e.Put(nodeKey(s, id, 100+n), kv.Value); err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 10 {
			t.Fatalf("scanned %d rows, want 10", n)
		}
	})
}

// TestPulledScanClose leaves a scan suspended by iter.Pull2 while the engine
// closes: Close must not wait for it, and the scan must then end with
// ErrClosed without touching the freed iterator.
func TestPulledScanClose(t *testing.T) {
	e := newTestEngine(t)
	s, id := putNode(t, e, 3, constValue)
	next, stop := iter.Pull2(e.Scan(storage.NodeHistory(s, id)))
	defer stop()
	if _, err, ok := next(); !ok || err != nil {
		t.Fatalf("first row: %v, %t", err, ok)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err, ok := next(); !ok || !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("after close: %v, %t; want ErrClosed", err, ok)
	}
	if _, _, ok := next(); ok {
		t.Fatal("scan went on after its error")
	}
}

// TestCloseDuringScan closes the engine from a scan's loop body, and from
// another goroutine while scans run: scans end with ErrClosed, every
// iterator is freed once, and nothing deadlocks.
func TestCloseDuringScan(t *testing.T) {
	t.Run("from body", func(t *testing.T) {
		e := newTestEngine(t)
		s, id := putNode(t, e, 10, constValue)
		var rows int
		var last error
		for _, err := range e.Scan(storage.NodeHistory(s, id)) {
			if err != nil {
				last = err
				break
			}
			rows++
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if rows != 1 || !errors.Is(last, storage.ErrClosed) {
			t.Fatalf("rows %d, last error %v; want 1 row, then ErrClosed", rows, last)
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		e := newTestEngine(t)
		s, id := putNode(t, e, 1000, constValue)
		var wg sync.WaitGroup
		started := make(chan struct{}, 4)
		for range 4 {
			wg.Go(func() {
				for i := 0; ; i++ {
					for _, err := range e.Scan(storage.NodeHistory(s, id)) {
						if i == 0 {
							select {
							case started <- struct{}{}:
							default:
							}
						}
						if errors.Is(err, storage.ErrClosed) {
							return
						}
						if err != nil {
							t.Error(err)
							return
						}
					}
				}
			})
		}
		for range 4 {
			<-started
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
	})
}

func TestSnapshot(t *testing.T) {
	e := newTestEngine(t)
	s := newScope(t)
	id := uuid.New()
	k1, k2 := nodeKey(s, id, 1), nodeKey(s, id, 2)
	if err := e.Put(k1, []byte("old")); err != nil {
		t.Fatal(err)
	}
	snap, err := e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Put(k1, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := e.Put(k2, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got, err := snap.Get(k1); err != nil || string(got) != "old" {
		t.Fatalf("snapshot get = %q, %v; want old", got, err)
	}
	if _, err := snap.Get(k2); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("snapshot get of later key: %v", err)
	}
	if rows := collect(t, snap, storage.NodeHistory(s, id)); len(rows) != 1 || string(rows[0].Value) != "old" {
		t.Fatalf("snapshot scan = %v", rows)
	}

	// Closing the snapshot under one of its scans ends that scan.
	var last error
	for _, err := range snap.Scan(storage.NodeHistory(s, id)) {
		if err != nil {
			last = err
			break
		}
		if err := snap.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if !errors.Is(last, storage.ErrClosed) {
		t.Fatalf("scan after snapshot close ended with %v", last)
	}
	if _, err := snap.Get(k1); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("get after close: %v", err)
	}
	if err := snap.Close(); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("second close: %v", err)
	}

	// A snapshot left open is released by the engine's Close, and may be
	// closed after it.
	open, err := e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := open.Get(k1); !errors.Is(err, storage.ErrClosed) {
		t.Fatalf("snapshot get after engine close: %v", err)
	}
	if err := open.Close(); err != nil {
		t.Fatalf("snapshot close after engine close: %v", err)
	}
}

func TestBatch(t *testing.T) {
	e := newTestEngine(t)
	s := newScope(t)
	id := uuid.New()
	if err := e.Put(nodeKey(s, id, 0), []byte("gone")); err != nil {
		t.Fatal(err)
	}
	var b storage.Batch
	b.Put(nodeKey(s, id, 1), []byte("a"))
	b.Put(storage.AdjacencyOutKey(s, id, 7, 1, 1, uuid.New()), []byte("b"))
	b.Delete(nodeKey(s, id, 0))
	b.Put(nodeKey(s, id, 1), []byte("last wins"))
	if err := e.WriteDurable(&b); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Get(nodeKey(s, id, 1)); err != nil || string(got) != "last wins" {
		t.Fatalf("get = %q, %v", got, err)
	}
	if _, err := e.Get(nodeKey(s, id, 0)); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("deleted key: %v", err)
	}

	// A poisoned batch is refused whole.
	var bad storage.Batch
	bad.Put(nodeKey(s, id, 2), []byte("never"))
	bad.Put(storage.Key{}, []byte("zero key"))
	if err := e.Write(&bad); !errors.Is(err, storage.ErrInvalidKey) {
		t.Fatalf("poisoned batch: %v", err)
	}
	if _, err := e.Get(nodeKey(s, id, 2)); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("poisoned batch landed: %v", err)
	}
}

func TestDeleteRange(t *testing.T) {
	e := newTestEngine(t)
	a, b, last := newScope(t), newScope(t), maxScope(t)
	id := uuid.New()
	fill := func() {
		for _, s := range []storage.TenantScope{a, b, last} {
			for v := range 5 {
				if err := e.Put(nodeKey(s, id, v), []byte("x")); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := e.Put(storage.SystemScope{}.JobKey(storage.JobQueued, 1, 1, id), []byte("sys")); err != nil {
			t.Fatal(err)
		}
	}
	count := func(s storage.TenantScope) int { return len(collect(t, e, storage.TenantAll(s, storage.NodeVersions))) }
	fill()

	if err := e.DeleteRange(storage.NodeHistory(a, id)); err != nil {
		t.Fatal(err)
	}
	if count(a) != 0 || count(b) != 5 || count(last) != 5 {
		t.Fatalf("after deleting a: a=%d b=%d last=%d", count(a), count(b), count(last))
	}

	// The all-0xFF scope's range has no upper bound: it runs to the end of
	// the family, and the delete must stop nowhere short of it.
	r := storage.TenantAll(last, storage.NodeVersions)
	if _, upper := r.Bounds(); upper != nil {
		t.Fatalf("range of the all-0xFF scope has upper bound %x", upper)
	}
	if err := e.DeleteRange(r); err != nil {
		t.Fatal(err)
	}
	if count(last) != 0 || count(b) != 5 {
		t.Fatalf("after deleting last: b=%d last=%d", count(b), count(last))
	}

	// The system sweep crosses scopes and runs to the end of the family.
	full := storage.SystemScope{}.FullFamily(storage.NodeVersions)
	if n := len(collect(t, e, full)); n != 5 {
		t.Fatalf("full family scan: %d rows, want 5", n)
	}
	if err := e.DeleteRange(full); err != nil {
		t.Fatal(err)
	}
	if n := len(collect(t, e, full)); n != 0 {
		t.Fatalf("full family after delete: %d rows", n)
	}
	if n := len(collect(t, e, storage.SystemScope{}.FullFamily(storage.Jobs))); n != 1 {
		t.Fatalf("jobs family: %d rows, want 1 (untouched)", n)
	}

	// A cursor right below a stored upper bound would leave an empty range,
	// which RocksDB's DeleteRangeCF would refuse: the authority never
	// builds one.
	k := nodeKey(b, id, 1)
	stored, err := storage.FromStoredBounds(storage.NodeVersions, k.Bytes()[:storage.ScopeLen], append(k.Bytes(), 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stored.After(k); !errors.Is(err, storage.ErrEmptyRange) {
		t.Fatalf("After the last key of a range: %v, want ErrEmptyRange", err)
	}
}

func TestCheckpoint(t *testing.T) {
	e := newTestEngine(t)
	s, id := putNode(t, e, 20, constValue)
	dir := filepath.Join(t.TempDir(), "checkpoint")
	if err := e.Checkpoint(dir); err != nil {
		t.Fatal(err)
	}
	if err := e.Checkpoint(dir); err == nil {
		t.Fatal("checkpoint into an existing directory succeeded")
	}
	if err := e.Put(nodeKey(s, id, 99), []byte("after")); err != nil {
		t.Fatal(err)
	}
	c := openTest(t, Config{Path: dir, MemtableSize: testMemtableSize})
	if n := len(collect(t, c, storage.NodeHistory(s, id))); n != 20 {
		t.Fatalf("checkpoint holds %d rows, want 20", n)
	}
	if err := c.Put(nodeKey(s, id, 100), []byte("writable")); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointInsideStore refuses checkpoint targets of the store's own
// making: a directory inside the store (RocksDB would nest a copy among
// its own files), however the path is spelled, and a symbolic link to a
// directory, which exists.
func TestCheckpointInsideStore(t *testing.T) {
	e := newTestEngine(t)
	linked := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(linked, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dir  string
		want error
	}{
		{filepath.Join(e.path, "checkpoint"), ErrBadPath},
		{filepath.Join(e.path, "sub", "..", "checkpoint"), ErrBadPath},
		{e.path + "/./checkpoint", ErrBadPath},
		{link, fs.ErrExist},
	} {
		if err := e.Checkpoint(tt.dir); !errors.Is(err, tt.want) {
			t.Errorf("Checkpoint(%s) = %v, want %v", tt.dir, err, tt.want)
		}
	}
	if entries, err := os.ReadDir(linked); err != nil || len(entries) != 0 {
		t.Errorf("the linked directory holds %d entries, %v", len(entries), err)
	}
}

func TestZeroValuesAndClosed(t *testing.T) {
	e := newTestEngine(t)
	var zk storage.Key
	var zr storage.ScanRange
	check := func(what string, err, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", what, err, want)
		}
	}
	_, err := e.Get(zk)
	check("get", err, storage.ErrInvalidKey)
	check("put", e.Put(zk, nil), storage.ErrInvalidKey)
	check("delete", e.Delete(zk), storage.ErrInvalidKey)
	check("delete range", e.DeleteRange(zr), storage.ErrInvalidRange)
	check("scan", scanErr(e, zr), storage.ErrInvalidRange)

	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	k := nodeKey(newScope(t), uuid.New(), 1)
	r := storage.TenantAll(newScope(t), storage.Jobs)
	_, err = e.Get(k)
	check("get", err, storage.ErrClosed)
	check("put", e.Put(k, nil), storage.ErrClosed)
	check("delete", e.Delete(k), storage.ErrClosed)
	check("write", e.Write(&storage.Batch{}), storage.ErrClosed)
	check("write durable", e.WriteDurable(&storage.Batch{}), storage.ErrClosed)
	check("delete range", e.DeleteRange(r), storage.ErrClosed)
	check("scan", scanErr(e, r), storage.ErrClosed)
	_, err = e.Snapshot()
	check("snapshot", err, storage.ErrClosed)
	check("checkpoint", e.Checkpoint(filepath.Join(t.TempDir(), "c")), storage.ErrClosed)
	check("close", e.Close(), storage.ErrClosed)
}

// scanErr returns the error a scan yields, if any.
func scanErr(r storage.Reader, rng storage.ScanRange) error {
	for _, err := range r.Scan(rng) {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestFamilyOptions reads the OPTIONS file RocksDB writes at open and checks
// the per-family options of docs/design.md, Engines.
func TestFamilyOptions(t *testing.T) {
	cfg := testConfig(t)
	openTest(t, cfg)
	files, err := filepath.Glob(filepath.Join(cfg.Path, "OPTIONS-*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no OPTIONS file: %v", err)
	}
	data, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		t.Fatal(err)
	}
	sections := strings.Split(string(data), "\n[")
	for _, cf := range storage.Families() {
		var cfOpts, table string
		for i, sec := range sections {
			if strings.HasPrefix(sec, fmt.Sprintf("CFOptions %q", cf.String())) {
				cfOpts, table = sec, sections[i+1]
			}
		}
		if cfOpts == "" {
			t.Fatalf("no options for %s", cf)
		}
		want := []string{
			"prefix_extractor=rocksdb.FixedPrefix.32",
			"memtable_prefix_bloom_size_ratio=0.100000",
		}
		for _, w := range want {
			if !strings.Contains(cfOpts, "\n  "+w+"\n") {
				t.Errorf("%s: missing %s", cf, w)
			}
		}
		wholeKey := fmt.Sprintf("whole_key_filtering=%t", pointLookup(cf))
		for _, w := range []string{wholeKey, "filter_policy=bloomfilter"} {
			if !strings.Contains(table, "\n  "+w+"\n") {
				t.Errorf("%s table options: missing %s", cf, w)
			}
		}
	}
}

// TestWriteDurableSyncs checks the sync policy through RocksDB's own count
// of WAL syncs: Write under SyncWrites false does not sync, WriteDurable
// always does, and SyncWrites makes every write sync.
func TestWriteDurableSyncs(t *testing.T) {
	for _, syncWrites := range []bool{false, true} {
		cfg := testConfig(t)
		cfg.SyncWrites = syncWrites
		e := openTest(t, cfg)
		s := newScope(t)
		var b storage.Batch
		b.Put(nodeKey(s, uuid.New(), 1), []byte("x"))
		before := walSyncs(t, e)
		if err := e.Write(&b); err != nil {
			t.Fatal(err)
		}
		if err := e.Put(nodeKey(s, uuid.New(), 1), []byte("x")); err != nil {
			t.Fatal(err)
		}
		afterWrite := walSyncs(t, e)
		if err := e.WriteDurable(&b); err != nil {
			t.Fatal(err)
		}
		afterDurable := walSyncs(t, e)
		if wantWrite := map[bool]int{false: 0, true: 2}[syncWrites]; afterWrite-before != wantWrite {
			t.Errorf("SyncWrites %t: Write and Put synced the WAL %d times, want %d", syncWrites, afterWrite-before, wantWrite)
		}
		if afterDurable-afterWrite != 1 {
			t.Errorf("SyncWrites %t: WriteDurable synced the WAL %d times, want 1", syncWrites, afterDurable-afterWrite)
		}
	}
}

// walSyncs reads the cumulative WAL sync count from the "rocksdb.dbstats"
// property, whose line reads "Cumulative WAL: 3 writes, 1 syncs, ...".
func walSyncs(t testing.TB, e *Engine) int {
	t.Helper()
	stats := e.db.GetProperty("rocksdb.dbstats")
	for line := range strings.Lines(stats) {
		if rest, ok := strings.CutPrefix(line, "Cumulative WAL: "); ok {
			var writes, syncs int
			if _, err := fmt.Sscanf(rest, "%d writes, %d syncs", &writes, &syncs); err != nil {
				t.Fatalf("parse %q: %v", line, err)
			}
			return syncs
		}
	}
	t.Fatalf("no WAL line in dbstats:\n%s", stats)
	return 0
}
