// Package storagetest is the conformance suite for storage.Engine: the
// executable acceptance bar every backend passes unchanged (MemoryEngine,
// RocksDB, and any later one). A backend runs it with one call:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, storagetest.Harness{New: ..., OpenCheckpoint: ...})
//	}
//
// Beyond the contract written on storage.Engine, the suite pins these
// behaviours, which callers rely on:
//   - a Scan sees one consistent state: a batch is wholly visible to it or
//     not at all, and writes made by its own loop body are not seen by it;
//   - a Scan may be ranged over more than once, and its loop body may write
//     to the engine;
//   - a panic in a loop body reaches the caller unchanged, and the engine's
//     iterator is released all the same;
//   - Engine.Close ends every open snapshot: its reads return ErrClosed;
//   - a scan in progress when its engine or snapshot closes yields no row
//     after Close returns: its next element is ErrClosed, its last;
//   - a batch with conditions is applied whole when they all hold, as the
//     store is just before it, and refused whole with ErrConflict
//     otherwise, also against racing writers;
//   - engines trust nothing they are handed: a key, range or batch changed
//     after it was built (through unsafe, or a race) is refused whole with
//     ErrInvalidKey, ErrInvalidRange, ErrUnknownKind or ErrValueTooLarge; a
//     nil batch with ErrNilBatch;
//   - an engine or snapshot that was never opened (a nil pointer, or a zero
//     value callers can write) refuses every call with ErrNotOpen and never
//     panics; a zero engine may instead be a working empty engine;
//   - under random interleavings of every operation, also across a close
//     and a new open of the store and the backend's own upkeep, an engine
//     answers as MemoryEngine does (the model test, Harness.NewStore and
//     Harness.Upkeep).
//
// Random choices come from a fixed seed, logged on failure; set
// STORAGETEST_SEED to another integer to explore.
//
// The package also holds the engine matrix (EachEngine): the one list of
// engines, memory, RocksDB and every kind added with Register, that every
// module's tests run on.
//
// Outside the key authority only test files may import it: its helpers
// read and write the system namespace (SystemRows, the suite), which
// production code must not borrow (systemscope reports the import).
//
//telha:facade tests
package storagetest

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"pgregory.net/rapid"

	"telha.dev/core/storage"
)

// Harness tells the suite how to make engines of one backend.
type Harness struct {
	// New returns a fresh, empty engine. The suite closes it.
	New func(t testing.TB) storage.Engine
	// OpenCheckpoint opens a directory written by Engine.Checkpoint as a
	// working engine. The suite closes it.
	OpenCheckpoint func(t testing.TB, dir string) storage.Engine

	// NewStore, if set, creates a new, empty store that keeps what was
	// written across Close, and returns the function that opens it. The
	// model test closes the engine it got and opens the store again, which
	// must hold every write that returned; open may draw from t a setting
	// the backend has several values of (the etcd engine's page size).
	// Nil for a store that does not outlive its engine (memory).
	NewStore func(t testing.TB) (open func(t *rapid.T) storage.Engine)

	// Upkeep names the backend's own operations, work an engine does
	// behind its callers' backs (a flush, a compaction), which the model
	// test runs among its random ones: none may change an answer of the
	// engine, except that one may end snap, the open snapshot (nil when
	// none is open). It returns the error every later read of snap must
	// return then, or nil.
	Upkeep map[string]func(t *rapid.T, e storage.Engine, snap storage.Snapshot) error

	// Remote reports that every call is a round trip to other processes:
	// the model test compares the whole store at the end of each check,
	// not after every step.
	Remote bool
}

// Run runs every conformance test against the harness's backend.
func Run(t *testing.T, h Harness) {
	if h.New == nil || h.OpenCheckpoint == nil {
		t.Fatal("storagetest: Harness.New and Harness.OpenCheckpoint are both required")
	}
	tests := []struct {
		name string
		run  func(*testing.T, Harness)
	}{
		{"ByteOrder", testByteOrder},
		{"Values", testValues},
		{"RangeMatrix", testRangeMatrix},
		{"TenantDeleteRange", testTenantDeleteRange},
		{"DeleteRangeConfinement", testDeleteRangeConfinement},
		{"BatchAtomicity", testBatchAtomicity},
		{"BatchDeleteRange", testBatchDeleteRange},
		{"ConditionalBatches", testConditionalBatches},
		{"ConditionalRaces", testConditionalRaces},
		{"TamperedConditions", testTamperedConditions},
		{"CompactRanges", testCompactRanges},
		{"ConcurrentBatchVisibility", testConcurrentBatchVisibility},
		{"SnapshotIsolation", testSnapshotIsolation},
		{"ScanTermination", testScanTermination},
		{"ScanLoopBodyWrites", testScanLoopBodyWrites},
		{"ConcurrentReadersWriters", testConcurrentReadersWriters},
		{"Checkpoint", testCheckpoint},
		{"InvalidArguments", testInvalidArguments},
		{"ForgedKeys", testForgedKeys},
		{"ForgedRanges", testForgedRanges},
		{"TamperedBatches", testTamperedBatches},
		{"ForeignCursors", testForeignCursors},
		{"NilAndZero", testNilAndZero},
		{"Closed", testClosed},
		{"CloseDuringScan", testCloseDuringScan},
		{"ConcurrentClose", testConcurrentClose},
		{"CheckpointTargets", testCheckpointTargets},
		{"WriteStamp", testWriteStamp},
		{"Model", testModel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, h) })
	}
}

// hangTimeout bounds calls that must not block: Close after scans that
// ended early, and scans whose loop body writes. It is generous because
// the suite runs under -race on shared machines.
const hangTimeout = 20 * time.Second

// open returns a fresh engine that is closed when the test ends.
func open(t *testing.T, h Harness) storage.Engine {
	t.Helper()
	e := h.New(t)
	t.Cleanup(func() { closeEngine(t, e) })
	return e
}

// openCheckpoint opens dir with the harness; the engine is closed when the
// test ends.
func openCheckpoint(t *testing.T, h Harness, dir string) storage.Engine {
	t.Helper()
	e := h.OpenCheckpoint(t, dir)
	t.Cleanup(func() { closeEngine(t, e) })
	return e
}

// closeEngine closes e, tolerating an engine the test closed already, and
// reports a Close that hangs, the symptom of a leaked iterator.
func closeEngine(t testing.TB, e storage.Engine) {
	var err error
	if within(t, "Engine.Close", func() { err = e.Close() }) && err != nil && !errors.Is(err, storage.ErrClosed) {
		t.Errorf("Close: %v", err)
	}
}

// within runs f and reports false, with a test error, if it does not return
// within hangTimeout. The goroutine of a hung f is left behind.
func within(t testing.TB, what string, f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-time.After(hangTimeout):
		t.Errorf("%s did not return within %v: a scan leaked its iterator or a lock is still held", what, hangTimeout)
		return false
	}
}

// seedEnv names the environment variable that overrides the fixed seed.
const seedEnv = "STORAGETEST_SEED"

// newRand returns a generator with the suite's seed, logged if the test
// fails so that the failure can be replayed.
func newRand(t *testing.T) *rand.Rand {
	t.Helper()
	seed := uint64(20260702)
	if s := os.Getenv(seedEnv); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", seedEnv, s, err)
		}
		seed = v
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("random seed %d (replay with %s=%d)", seed, seedEnv, seed)
		}
	})
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// scanAll collects a scan's rows and its error. A scan that yields anything
// after its error breaks the Reader contract and is reported as an error
// that matches no sentinel.
func scanAll(r storage.Reader, rg storage.ScanRange) ([]storage.KV, error) {
	return scanSeq(r.Scan(rg))
}

// scanSeq is scanAll of a scan already made.
func scanSeq(seq iter.Seq2[storage.KV, error]) ([]storage.KV, error) {
	var rows []storage.KV
	var scanErr error
	for kv, err := range seq {
		if scanErr != nil {
			return rows, fmt.Errorf("scan yielded (%x, %v) after its error %q", kv.Key, err, scanErr.Error())
		}
		if err != nil {
			scanErr = err
			continue
		}
		rows = append(rows, kv)
	}
	return rows, scanErr
}

// mustScan scans rg and checks what every scan owes (see checkRows).
func mustScan(t testing.TB, r storage.Reader, rg storage.ScanRange) []storage.KV {
	t.Helper()
	rows, err := scanAll(r, rg)
	if err == nil {
		err = checkRows(rg, rows)
	}
	if err != nil {
		t.Fatalf("scan %s: %v", rg, err)
	}
	return rows
}

// checkRows checks what every scan's rows owe: keys in strictly ascending
// byte order, every key inside the range.
func checkRows(rg storage.ScanRange, rows []storage.KV) error {
	lower, upper := rg.Bounds()
	for i, kv := range rows {
		if i > 0 && bytes.Compare(rows[i-1].Key, kv.Key) >= 0 {
			return fmt.Errorf("row %d %x does not sort after row %d %x", i, kv.Key, i-1, rows[i-1].Key)
		}
		if bytes.Compare(kv.Key, lower) < 0 || upper != nil && bytes.Compare(kv.Key, upper) >= 0 {
			return fmt.Errorf("yielded %s outside the range", describe(rg.Family(), kv.Key))
		}
	}
	return nil
}

// tables is the content of an engine: the rows of each family in key order.
type tables map[storage.ColumnFamily][]storage.KV

// readTables reads every family of r in total order.
func readTables(t testing.TB, r storage.Reader) tables {
	t.Helper()
	out := tables{}
	for _, cf := range storage.Families() {
		out[cf] = mustScan(t, r, storage.SystemScope{}.FullFamily(cf))
	}
	return out
}

// model is what an engine should hold: the value at each key.
type model map[storage.Key][]byte

// apply records a batch's mutations in order, as an engine applies them.
// It keeps copies of the values, which the batch still owns.
func (m model) apply(b *storage.Batch) {
	for _, mu := range b.All() {
		switch mu.Kind {
		case storage.MutationPut:
			m[mu.Key] = bytes.Clone(mu.Value)
		case storage.MutationDelete:
			delete(m, mu.Key)
		default:
			deleteRange(m, mu.Range)
		}
	}
}

// tables returns the model's rows per family in key order.
func (m model) tables() tables {
	out := tables{}
	for _, cf := range storage.Families() {
		out[cf] = m.rows(cf)
	}
	return out
}

// rows returns the model's rows of family cf in key order.
func (m model) rows(cf storage.ColumnFamily) []storage.KV {
	var rows []storage.KV
	for k, v := range m {
		if k.Family() == cf {
			rows = append(rows, storage.KV{Key: k.Bytes(), Value: v})
		}
	}
	slices.SortFunc(rows, func(a, b storage.KV) int { return bytes.Compare(a.Key, b.Key) })
	return rows
}

// checkTables reports every difference between want and what r holds.
func checkTables(t testing.TB, what string, r storage.Reader, want tables) {
	t.Helper()
	got := readTables(t, r)
	for _, cf := range storage.Families() {
		for _, d := range diffRows(cf, want[cf], got[cf]) {
			t.Errorf("%s: %s", what, d)
		}
	}
}

// maxDiffs caps the differences reported per comparison.
const maxDiffs = 5

// diffRows describes how got differs from want; both are in key order.
func diffRows(cf storage.ColumnFamily, want, got []storage.KV) []string {
	var out []string
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		if len(out) == maxDiffs {
			return append(out, "...")
		}
		switch {
		case j == len(got) || i < len(want) && bytes.Compare(want[i].Key, got[j].Key) < 0:
			out = append(out, "missing "+describe(cf, want[i].Key))
			i++
		case i == len(want) || bytes.Compare(want[i].Key, got[j].Key) > 0:
			out = append(out, "unexpected "+describe(cf, got[j].Key))
			j++
		default:
			if !bytes.Equal(want[i].Value, got[j].Value) {
				out = append(out, fmt.Sprintf("value of %s is %q, want %q", describe(cf, got[j].Key), got[j].Value, want[i].Value))
			}
			i++
			j++
		}
	}
	return out
}

// describe renders key bytes for a failure message.
func describe(cf storage.ColumnFamily, key []byte) string {
	s, err := storage.DescribeKey(cf, key)
	if err != nil {
		return fmt.Sprintf("%s %x (%v)", cf, key, err)
	}
	return s
}

// mustGet returns the value at k, failing the test on any error.
func mustGet(t testing.TB, r storage.Reader, k storage.Key) []byte {
	t.Helper()
	v, err := r.Get(k)
	if err != nil {
		t.Fatalf("Get %s: %v", k, err)
	}
	return v
}

// checkAbsent fails unless Get of k reports ErrNotFound.
func checkAbsent(t testing.TB, r storage.Reader, k storage.Key) {
	t.Helper()
	if v, err := r.Get(k); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Get %s = %q, %v; want ErrNotFound", k, v, err)
	}
}

// must fails the test on a non-nil error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
