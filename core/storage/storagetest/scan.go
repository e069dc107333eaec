package storagetest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// loopPanic is the value the scan tests panic with, so that the recovered
// value shows the engine let the panic through unchanged.
type loopPanic struct{ n int }

// historyRows writes n versions of one node of tenant A and returns their
// range and the rows in key order.
func historyRows(t *testing.T, e storage.Engine, id byte, n int) (storage.ScanRange, []storage.Key) {
	t.Helper()
	var b storage.Batch
	keys := make([]storage.Key, n)
	for i := range n {
		// Inverted valid times: the latest version sorts first.
		keys[n-1-i] = storage.NodeVersionKey(tenantA.tenant, uuid.UUID{15: id}, storage.Timestamp(i), 0)
		b.Put(keys[n-1-i], []byte{byte(i)})
	}
	must(t, e.Write(&b))
	return storage.NodeHistory(tenantA.tenant, uuid.UUID{15: id}), keys
}

// panicsInLoop panics with p in the body of a scan loop and checks that the
// panic comes out of the loop unchanged.
func panicsInLoop(t *testing.T, rd storage.Reader, r storage.ScanRange, p loopPanic) {
	t.Helper()
	defer func() {
		if got := recover(); got != p {
			t.Fatalf("recovered %v, want the loop body's panic %v", got, p)
		}
	}()
	for range rd.Scan(r) {
		panic(p)
	}
}

// testScanTermination ends scans every way a loop can end (break after one
// row, break midway, a panic in the loop body, nested loops, a snapshot's
// scan) many times over, then demands that the engine still works and that
// Close returns promptly: an engine that leaks an iterator on any of these
// paths hangs or crashes in Close.
func testScanTermination(t *testing.T, h Harness) {
	e := open(t, h)
	r, keys := historyRows(t, e, 1, 200)
	first := keys[0].Bytes()

	for range 100 {
		n := 0
		for kv, err := range e.Scan(r) {
			must(t, err)
			if string(kv.Key) != string(first) {
				t.Fatalf("first row %x, want %x", kv.Key, first)
			}
			n++
			break
		}
		if n != 1 {
			t.Fatalf("break after one row saw %d rows", n)
		}
	}
	for range 10 {
		n := 0
		for range e.Scan(r) {
			if n++; n == len(keys)/2 {
				break
			}
		}
	}
	for i := range 20 {
		panicsInLoop(t, e, r, loopPanic{i})
	}
	for range 10 {
		for range e.Scan(r) {
			for range e.Scan(r) {
				break
			}
			break
		}
	}
	snap, err := e.Snapshot()
	must(t, err)
	for range 10 {
		for range snap.Scan(r) {
			break
		}
	}
	panicsInLoop(t, snap, r, loopPanic{-1})
	must(t, snap.Close())

	// A scan may be ranged over again, and yields the same rows.
	seq := e.Scan(r)
	n := 0
	for range 2 {
		for _, err := range seq {
			must(t, err)
			n++
		}
	}
	if n != 2*len(keys) {
		t.Errorf("ranging twice over one Scan saw %d rows, want %d", n, 2*len(keys))
	}

	extra := nodeKey(2)
	must(t, e.Put(extra, []byte("after")))
	if got := mustGet(t, e, extra); string(got) != "after" {
		t.Errorf("Get after the early exits = %q", got)
	}
	if got := len(mustScan(t, e, r)); got != len(keys) {
		t.Errorf("full scan after the early exits: %d rows, want %d", got, len(keys))
	}
	var closeErr error
	if !within(t, "Close after scans that ended early", func() { closeErr = e.Close() }) {
		t.FailNow()
	}
	must(t, closeErr)
}

// testScanLoopBodyWrites writes to the engine from inside scan loops, on the
// engine and on a snapshot: the writes must not deadlock, must not show in
// the running scan (which sees the state at its start), and must all land.
func testScanLoopBodyWrites(t *testing.T, h Harness) {
	e := open(t, h)
	r, keys := historyRows(t, e, 1, 50)
	other, _ := historyRows(t, e, 2, 10)
	snap, err := e.Snapshot()
	must(t, err)
	defer func() { must(t, snap.Close()) }()

	var seen int
	var replacement []storage.Key
	var loopErr error
	body := func() {
		for kv, err := range e.Scan(r) {
			if err != nil {
				loopErr = err
				return
			}
			if seen == len(keys) || !bytes.Equal(kv.Key, keys[seen].Bytes()) {
				loopErr = fmt.Errorf("row %d is %s: the scan saw its loop body's writes", seen, describe(storage.NodeVersions, kv.Key))
				return
			}
			// Replace the row with one that sorts after every original.
			k := storage.NodeVersionKey(tenantA.tenant, uuid.UUID{15: 1}, storage.MinTimestamp+storage.Timestamp(seen), 0)
			replacement = append(replacement, k)
			var b storage.Batch
			b.Delete(keys[seen])
			b.Put(k, kv.Value)
			if loopErr = e.Write(&b); loopErr != nil {
				return
			}
			if _, loopErr = e.Get(k); loopErr != nil {
				return
			}
			seen++
		}
		if loopErr == nil {
			loopErr = e.DeleteRange(other)
		}
		// A snapshot's loop body may write too.
		for _, err := range snap.Scan(other) {
			if err != nil {
				loopErr = err
				return
			}
			if loopErr = e.Put(nodeKey(3), nil); loopErr != nil {
				return
			}
		}
	}
	if !within(t, "scan loops whose bodies write", body) {
		t.FailNow()
	}
	must(t, loopErr)
	if seen != len(keys) {
		t.Errorf("the scan saw %d rows, want the %d present at its start", seen, len(keys))
	}
	got := mustScan(t, e, r)
	if len(got) != len(replacement) {
		t.Fatalf("after the loop the range holds %d rows, want the %d written by the loop body", len(got), len(replacement))
	}
	if rows := mustScan(t, e, other); len(rows) != 0 {
		t.Errorf("a range deleted after a scan holds %d rows", len(rows))
	}
	mustGet(t, e, nodeKey(3))
}
