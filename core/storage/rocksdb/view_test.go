package rocksdb

import (
	"bytes"
	"iter"
	"testing"

	"telha.dev/core/storage"
)

// TestScanViewBatches is TestScanBatches for the lent scan: rows of every
// size across many fills of one reused buffer (rows exactly as large as a
// first batch, rows larger than the buffer, empty values), on the engine
// and on a snapshot. Each row is checked, and copied, in its loop body,
// where it is valid: capped to its own bytes, so that an append cannot
// write into the row after it in the buffer.
func TestScanViewBatches(t *testing.T) {
	e, s, id, snap, want := batchRows(t)
	versions := len(want)
	for name, r := range map[string]storage.Reader{"engine": e, "snapshot": snap} {
		i := 0
		for kv, err := range storage.ScanView(r, storage.NodeHistory(s, id)) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if cap(kv.Key) != len(kv.Key) || cap(kv.Value) != len(kv.Value) {
				t.Fatalf("%s row %d: slices not capped: key %d/%d, value %d/%d", name, i, len(kv.Key), cap(kv.Key), len(kv.Value), cap(kv.Value))
			}
			if i == versions || !bytes.Equal(kv.Key, want[i].Key) || !bytes.Equal(kv.Value, want[i].Value) {
				t.Fatalf("%s row %d: key %x, value of %d bytes", name, i, kv.Key, len(kv.Value))
			}
			i++
		}
		if i != versions {
			t.Fatalf("%s: %d rows, want %d", name, i, versions)
		}
	}
	if n := openCursors(e); n != 0 {
		t.Fatalf("%d cursors left open", n)
	}
}

// TestScanViewAllocations pins what the lent scan is for: its allocations
// do not grow with the rows it reads. A scan of four times the rows (about
// 40 batches instead of 10) allocates no more, where Scan allocates a
// buffer per batch.
func TestScanViewAllocations(t *testing.T) {
	e := newTestEngine(t)
	value := bytes.Repeat([]byte{'v'}, 100)
	short, _ := putNode(t, e, 1000, func(int) []byte { return value })
	long, _ := putNode(t, e, 4000, func(int) []byte { return value })
	allocs := func(s storage.TenantScope, scan func(storage.ScanRange) iter.Seq2[storage.KV, error]) float64 {
		r := storage.TenantAll(s, storage.NodeVersions)
		return testing.AllocsPerRun(20, func() {
			for _, err := range scan(r) {
				if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	view := func(r storage.ScanRange) iter.Seq2[storage.KV, error] { return storage.ScanView(e, r) }
	scan := func(r storage.ScanRange) iter.Seq2[storage.KV, error] { return e.Scan(r) }
	if s, l := allocs(short, view), allocs(long, view); l > s {
		t.Errorf("ScanView of 4,000 rows: %v allocations, of 1,000 rows: %v; want no more", l, s)
	}
	if s, l := allocs(short, scan), allocs(long, scan); l <= s {
		t.Errorf("Scan of 4,000 rows: %v allocations, of 1,000 rows: %v; the test no longer tells the two apart", l, s)
	}
}
