package rocksdb

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// TestBindingLayout pins what native.go reads out of grocksdb's wrappers:
// an upgrade of the binding that moves a handle fails here, and Open
// refuses to run with it.
func TestBindingLayout(t *testing.T) {
	if errBinding != nil {
		t.Fatal(errBinding)
	}
}

// batchValue is the value of version v in TestScanBatches: sizes that put
// rows across batch boundaries, rows exactly as large as a batch, rows larger
// than any batch, and empty values.
func batchValue(v int) []byte {
	var n int
	switch {
	case v%97 == 13:
		n = 3*maxBatch + v // a buffer of its own
	case v%89 == 7:
		n = minBatch - 64 - slotLen // the row fills a first batch exactly
	case v%5 == 0:
		n = 0
	default:
		n = v % 300
	}
	return bytes.Repeat([]byte{byte(v)}, n)
}

// batchRows writes the versions of one node with batchValue on a new
// engine, and returns the engine, the node, a snapshot of it closed when t
// ends, and its rows in key order.
func batchRows(t *testing.T) (*Engine, storage.TenantScope, uuid.UUID, storage.Snapshot, []storage.KV) {
	t.Helper()
	e := newTestEngine(t)
	const versions = 700
	s, id := putNode(t, e, versions, batchValue)
	snap, err := e.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = snap.Close() })
	want := make([]storage.KV, versions)
	for v := range want {
		want[v] = storage.KV{Key: nodeKey(s, id, v).Bytes(), Value: batchValue(v)}
	}
	slices.SortFunc(want, func(a, b storage.KV) int { return bytes.Compare(a.Key, b.Key) })
	return e, s, id, snap, want
}

// TestScanBatches scans rows of every size across many batches, on the
// engine and on a snapshot, and checks each row whole, in order, capped to
// its own bytes, and unchanged by appends to the rows around it.
func TestScanBatches(t *testing.T) {
	e, s, id, snap, want := batchRows(t)
	versions := len(want)
	// Rows written after the snapshot must not reach its scan.
	if err := e.Put(nodeKey(s, id, versions), []byte("later")); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]storage.Reader{"engine": e, "snapshot": snap} {
		rows := collect(t, r, storage.NodeHistory(s, id))
		if name == "engine" {
			rows = slices.DeleteFunc(rows, func(kv storage.KV) bool { return string(kv.Value) == "later" })
		}
		if len(rows) != versions {
			t.Fatalf("%s: %d rows, want %d", name, len(rows), versions)
		}
		for i, kv := range rows {
			if cap(kv.Key) != len(kv.Key) || cap(kv.Value) != len(kv.Value) {
				t.Fatalf("%s row %d: slices not capped: key %d/%d, value %d/%d", name, i, len(kv.Key), cap(kv.Key), len(kv.Value), cap(kv.Value))
			}
			// An append must reallocate, never write into the next row.
			_ = append(kv.Key, 0xEE)
			_ = append(kv.Value, 0xEE)
		}
		for i, kv := range rows {
			if !bytes.Equal(kv.Key, want[i].Key) || !bytes.Equal(kv.Value, want[i].Value) {
				t.Fatalf("%s row %d: key %x, value of %d bytes; want key %x, %d bytes", name, i, kv.Key, len(kv.Value), want[i].Key, len(want[i].Value))
			}
		}
	}
	if n := openCursors(e); n != 0 {
		t.Fatalf("%d cursors left open", n)
	}
}

// TestScanBreakInBatch stops scans at every position of their first batches:
// the cursor is freed, and the next scan starts afresh.
func TestScanBreakInBatch(t *testing.T) {
	e := newTestEngine(t)
	const versions = 40
	s, id := putNode(t, e, versions, func(v int) []byte { return []byte(fmt.Sprint(v)) })
	r := storage.NodeHistory(s, id)
	for stop := range versions {
		n := 0
		for kv, err := range e.Scan(r) {
			if err != nil {
				t.Fatal(err)
			}
			// The history runs from the newest version.
			if string(kv.Value) != fmt.Sprint(versions-1-n) {
				t.Fatalf("stop %d: row %d holds %q", stop, n, kv.Value)
			}
			if n == stop {
				break
			}
			n++
		}
		if got := openCursors(e); got != 0 {
			t.Fatalf("stop %d: %d cursors open", stop, got)
		}
	}
}

// TestScanDamagedTable reads a table file whose data blocks were damaged:
// the scan yields rows that are right, then storage.ErrCorrupt as its last
// element; never a wrong row, never a silent end.
func TestScanDamagedTable(t *testing.T) {
	cfg := createStore(t)
	e, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, id := newScope(t), uuid.New()
	const versions = 2000
	value := func(v int) []byte { return bytes.Repeat([]byte(fmt.Sprint(v)), 20) }
	for v := range versions {
		if err := e.Put(nodeKey(s, id, v), value(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil { // flushes every row to a table file
		t.Fatal(err)
	}
	sst := largest(t, cfg.Path, "*.sst")
	flip(t, sst, fileSize(t, sst)/4, 64) // data blocks come first; index and filters last
	e, err = Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rows, last := 0, error(nil)
	for kv, err := range e.Scan(storage.NodeHistory(s, id)) {
		if last != nil {
			t.Fatalf("the scan went on after %v", last)
		}
		if err != nil {
			last = err
			continue
		}
		if !bytes.Equal(kv.Value, value(versions-1-rows)) { // newest first
			t.Fatalf("row %d holds %q", rows, kv.Value)
		}
		rows++
	}
	if !errors.Is(last, storage.ErrCorrupt) {
		t.Fatalf("after %d of %d rows the scan ended with %v, want storage.ErrCorrupt", rows, versions, last)
	}
	t.Logf("%d rows, then %v", rows, last)
}
