package storagetest

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
)

// ScanViews tests storage.ScanView on env's engine and its snapshots: on
// an engine with storage.ViewScanner the lent scan, on any other the
// fallback to Scan. Run it on the matrix:
//
//	storagetest.EachEngine(t, storagetest.ScanViews)
//
// A lent row is valid only until its loop body returns, and the tests rely
// on no more: every row they compare after the loop was copied inside it.
// Whether an engine overwrites a row kept past its iteration is not tested:
// it may (RocksDB and the memory engine do, from the next batch or row on)
// or not (a fallback to Scan), and a caller may rely on neither.
func ScanViews(t *testing.T, env *Env) {
	t.Run("SameRowsAsScan", func(t *testing.T) { viewSameRows(t, env) })
	t.Run("Termination", func(t *testing.T) { viewTermination(t, env.sibling(t)) })
	t.Run("LoopBodyWrites", func(t *testing.T) { viewLoopBodyWrites(t, env.sibling(t)) })
	t.Run("CloseDuringScan", func(t *testing.T) {
		closeDuringScan(t, "lent scan", func(t *testing.T) storage.Engine { return env.sibling(t).Engine }, storage.ScanView)
	})
}

// sibling opens a new, empty store of env's kind, closed when t ends.
func (env *Env) sibling(t *testing.T) *Env {
	t.Helper()
	for _, k := range Engines() {
		if k.Name == env.Kind {
			return k.newEnv(t)
		}
	}
	t.Fatalf("storagetest: no engine kind %q in the matrix", env.Kind)
	return nil
}

// viewLimit collects copies of the rows of a lent scan of rg, as ScanLimit
// does for Scan: until its end, its first error, or limit rows when limit
// is not 0. Each row is copied before its loop body returns.
func viewLimit(r storage.Reader, rg storage.ScanRange, limit int) ([]storage.KV, error) {
	var out []storage.KV
	for kv, err := range storage.ScanView(r, rg) {
		if err != nil {
			return out, err
		}
		out = append(out, storage.KV{Key: bytes.Clone(kv.Key), Value: bytes.Clone(kv.Value)})
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// viewSameRows is the property that ScanView yields exactly the rows of
// Scan, and ends the same way, for random ranges of the fixture (every
// family and scope, the system sweep across scopes, resumed after a row,
// the zero range) on the engine and on a snapshot, stopped after a random
// number of rows or not, while the engine changes under the snapshot.
// Rows larger than a scan's batch buffer are among them.
func viewSameRows(t *testing.T, env *Env) {
	e := env.Engine
	fx := newFixture(t, allScopes, &edgeValues)
	fx.load(t, e)
	var large storage.Batch
	for i, n := range []int{20 << 10, 100, 70 << 10, 0, 1 << 10} {
		large.Put(storage.NodeVersionKey(tenantA.tenant, uuid.UUID{15: 0xfe}, storage.Timestamp(i), 0), bytes.Repeat([]byte{byte(i)}, n))
	}
	must(t, e.Write(&large))
	var all []row
	for _, cf := range allFamilies {
		all = append(all, fx.rows[cf]...)
	}
	snap, err := e.Snapshot()
	must(t, err)
	defer func() { must(t, snap.Close()) }()
	readers := []storage.Reader{e, snap}

	Check(t, env, func(rt *rapid.T) {
		if rapid.Bool().Draw(rt, "write") {
			r := rapid.SampledFrom(all).Draw(rt, "row")
			err := e.Put(r.key, []byte("rewritten"))
			if rapid.Bool().Draw(rt, "delete") {
				err = e.Delete(r.key)
			}
			if err != nil {
				rt.Fatalf("write %s: %v", r.key, err)
			}
		}
		rd := readers[rapid.IntRange(0, len(readers)-1).Draw(rt, "reader")]
		rg := drawRange(rt, fx)
		limit := rapid.IntRange(0, 8).Draw(rt, "limit")
		got, gerr := viewLimit(rd, rg, limit)
		want, werr := ScanLimit(rd, rg, limit)
		sameError(rt, "scan view "+rg.String(), gerr, werr)
		if err := checkRows(rg, got); err != nil {
			rt.Fatalf("scan view %s: %v", rg, err)
		}
		for _, d := range diffRows(rg.Family(), want, got) {
			rt.Errorf("scan view %s against scan: %s", rg, d)
		}
	})
}

// drawRange draws a range over the fixture: the zero range (invalid) now
// and then; otherwise a family of one tenant, or the system sweep of a
// family, resumed after one of its rows or not.
func drawRange(rt *rapid.T, fx *fixture) storage.ScanRange {
	if rapid.IntRange(0, 15).Draw(rt, "zero range") == 0 {
		return storage.ScanRange{}
	}
	cf := rapid.SampledFrom(allFamilies).Draw(rt, "family")
	s := rapid.SampledFrom(allScopes).Draw(rt, "scope")
	rg := storage.SystemScope{}.FullFamily(cf)
	if !s.system {
		rg = storage.TenantAll(s.tenant, cf)
	}
	var own []row
	for _, r := range fx.rows[cf] {
		if s.system || r.scope == s.name {
			own = append(own, r)
		}
	}
	if len(own) == 0 || !rapid.Bool().Draw(rt, "resume") {
		return rg
	}
	cursor := rapid.SampledFrom(own).Draw(rt, "cursor")
	if resumed, err := rg.After(cursor.key); err == nil {
		return resumed
	}
	return rg // the cursor is the range's last key
}

// viewTermination ends lent scans every way a loop can end, on the engine
// and on a snapshot, many times over, then demands that the engine still
// works and closes promptly, as testScanTermination does for Scan.
func viewTermination(t *testing.T, env *Env) {
	e := env.Engine
	r, keys := historyRows(t, e, 1, 200)
	snap, err := e.Snapshot()
	must(t, err)
	for _, rd := range []storage.Reader{e, snap} {
		for range 50 {
			for kv, err := range storage.ScanView(rd, r) {
				must(t, err)
				if !bytes.Equal(kv.Key, keys[0].Bytes()) {
					t.Fatalf("first row %x, want %x", kv.Key, keys[0].Bytes())
				}
				break
			}
		}
		for range 10 {
			if got, err := viewLimit(rd, r, len(keys)/2); err != nil || len(got) != len(keys)/2 {
				t.Fatalf("a lent scan stopped midway: %d rows, %v", len(got), err)
			}
		}
		for i := range 10 {
			viewPanicsInLoop(t, rd, r, loopPanic{i})
		}
		for range storage.ScanView(rd, r) {
			for range storage.ScanView(rd, r) {
				break
			}
			break
		}
		// A lent scan may be ranged over again, and yields the same rows.
		seq := storage.ScanView(rd, r)
		for range 2 {
			n := 0
			for _, err := range seq {
				must(t, err)
				n++
			}
			if n != len(keys) {
				t.Errorf("ranging again over one ScanView saw %d rows, want %d", n, len(keys))
			}
		}
	}
	must(t, snap.Close())
	if rows, err := viewLimit(e, r, 0); err != nil || len(rows) != len(keys) {
		t.Errorf("a full lent scan after the early exits: %d rows, %v; want %d", len(rows), err, len(keys))
	}
	if rows, err := viewLimit(e, storage.ScanRange{}, 0); len(rows) != 0 || !errors.Is(err, storage.ErrInvalidRange) {
		t.Errorf("a lent scan of the zero range: %d rows, %v; want only ErrInvalidRange", len(rows), err)
	}
	var closeErr error
	if !within(t, "Close after lent scans that ended early", func() { closeErr = e.Close() }) {
		t.FailNow()
	}
	must(t, closeErr)
}

// viewPanicsInLoop is panicsInLoop for a lent scan.
func viewPanicsInLoop(t *testing.T, rd storage.Reader, r storage.ScanRange, p loopPanic) {
	t.Helper()
	defer func() {
		if got := recover(); got != p {
			t.Fatalf("recovered %v, want the loop body's panic %v", got, p)
		}
	}()
	for range storage.ScanView(rd, r) {
		panic(p)
	}
}

// viewLoopBodyWrites writes, from the body of a lent scan, a row that sorts
// after every row of the range: the write must not deadlock, the scan must
// not see it, and it must land.
func viewLoopBodyWrites(t *testing.T, env *Env) {
	e := env.Engine
	r, keys := historyRows(t, e, 1, 50)
	seen := 0
	var loopErr error
	body := func() {
		for kv, err := range storage.ScanView(e, r) {
			if err != nil {
				loopErr = err
				return
			}
			if seen == len(keys) || !bytes.Equal(kv.Key, keys[seen].Bytes()) {
				loopErr = errors.New("the lent scan saw its loop body's writes: row " + describe(storage.NodeVersions, kv.Key))
				return
			}
			k := storage.NodeVersionKey(tenantA.tenant, uuid.UUID{15: 1}, storage.MinTimestamp+storage.Timestamp(seen), 0)
			if loopErr = e.Put(k, kv.Value); loopErr != nil {
				return
			}
			seen++
		}
	}
	if !within(t, "a lent scan whose body writes", body) {
		t.FailNow()
	}
	must(t, loopErr)
	if seen != len(keys) {
		t.Errorf("the lent scan saw %d rows, want the %d present at its start", seen, len(keys))
	}
	if got := len(mustScan(t, e, r)); got != 2*len(keys) {
		t.Errorf("after the loop the range holds %d rows, want %d", got, 2*len(keys))
	}
}
