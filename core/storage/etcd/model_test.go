package etcd_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"
	clientv3 "go.etcd.io/etcd/client/v3"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
)

// The model test runs random operations against the etcd engine and
// storage.MemoryEngine side by side and demands the same answers. Where the
// conformance suite checks every range constructor, this test checks
// interleavings: writes, range deletes, snapshots held across them, scans
// in pages as small as one row, engines closed and reopened on the same
// namespace, and compactions, which end a snapshot taken before them with
// ErrCompacted where the memory engine has no such notion.
//
// Its key space is small, so that operations collide, and its scopes sit
// at the edges of the byte space: A just above the system scope, B all 0xFF
// after its first byte (its upper bound carries), D all 0xFF (no upper
// bound).
var (
	modelScopes = []storage.TenantScope{
		mustScope("00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000001"),
		mustScope("7fffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
		mustScope("ffffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
	}
	modelIDs      = []uuid.UUID{{15: 1}, uuid.Max}
	modelTimes    = []storage.Timestamp{storage.MinTimestamp, 0, storage.MaxTimestamp}
	modelStates   = []storage.JobState{storage.JobQueued, storage.JobDead}
	modelFamilies = []storage.ColumnFamily{storage.NodeVersions, storage.Traces, storage.Jobs}
	modelKeys     = buildModelKeys()
	modelRanges   = buildModelRanges()
)

func mustScope(tenant, organization string) storage.TenantScope {
	s, err := storage.NewTenantScope(uuid.MustParse(tenant), uuid.MustParse(organization))
	if err != nil {
		panic(err)
	}
	return s
}

// buildModelKeys returns every key of the model: node versions, traces and
// jobs of each scope, and system jobs.
func buildModelKeys() []storage.Key {
	var keys []storage.Key
	jobs := func(key func(state storage.JobState, prio uint8, id uuid.UUID) storage.Key) {
		for _, state := range modelStates {
			for _, prio := range []uint8{0, 0xff} {
				keys = append(keys, key(state, prio, modelIDs[int(prio)%2]))
			}
		}
	}
	for _, s := range modelScopes {
		for _, id := range modelIDs {
			for _, tm := range modelTimes {
				keys = append(keys, storage.NodeVersionKey(s, id, tm, tm))
			}
			keys = append(keys, storage.TraceKey(s, id))
		}
		jobs(func(state storage.JobState, prio uint8, id uuid.UUID) storage.Key {
			return storage.JobKey(s, state, prio, 0, id)
		})
	}
	jobs(func(state storage.JobState, prio uint8, id uuid.UUID) storage.Key {
		return storage.SystemScope{}.JobKey(state, prio, 0, id)
	})
	return keys
}

// buildModelRanges returns ranges of several constructors over the model's
// keys, and their rests after every key of theirs that can be a cursor.
func buildModelRanges() []storage.ScanRange {
	var ranges []storage.ScanRange
	for _, cf := range modelFamilies {
		ranges = append(ranges, storage.SystemScope{}.FullFamily(cf))
	}
	for _, state := range modelStates {
		ranges = append(ranges, storage.SystemScope{}.JobsInState(state))
	}
	for _, s := range modelScopes {
		for _, cf := range modelFamilies {
			ranges = append(ranges, storage.TenantAll(s, cf))
		}
		for _, id := range modelIDs {
			ranges = append(ranges, storage.NodeHistory(s, id))
		}
		for _, state := range modelStates {
			ranges = append(ranges, storage.JobsInState(s, state))
		}
	}
	for _, r := range ranges[:len(ranges):len(ranges)] {
		for _, k := range modelKeys {
			if rest, err := r.After(k); err == nil {
				ranges = append(ranges, rest)
			}
		}
	}
	return ranges
}

// modelMachine holds the two engines and the snapshots open on both.
type modelMachine struct {
	cfg etcd.Config
	raw *clientv3.Client // for compaction
	e   *etcd.Engine
	mem *storage.MemoryEngine

	snap    *etcd.Snapshot // nil when no snapshot is open
	memSnap storage.Snapshot
	// compacted is set when a compaction passed the snapshot's revision.
	compacted bool
}

// TestModel is the model-based test. Each check runs on a new namespace of
// the shared cluster, with a page size drawn from 1 to 3 rows or the
// default.
func TestModel(t *testing.T) {
	raw := rawClient(t, etcdtest.Config(t))
	rapid.Check(t, func(rt *rapid.T) {
		cfg := etcdtest.Config(t)
		cfg.PageSize = rapid.SampledFrom([]int{1, 2, 3, 0}).Draw(rt, "page size")
		m := &modelMachine{cfg: cfg, raw: raw, mem: storage.NewMemoryEngine()}
		m.open(rt)
		defer func() {
			m.closeSnapshots(rt)
			m.e.Close()
		}()
		rt.Repeat(map[string]func(*rapid.T){
			"put":          m.put,
			"delete":       m.delete,
			"write batch":  m.writeBatch,
			"delete range": m.deleteRange,
			"get":          m.get,
			"scan":         m.scan,
			"snapshot":     m.snapshotOp,
			"reopen":       m.reopen,
			"compact":      m.compact,
		})
		m.check(rt)
	})
}

func (m *modelMachine) open(t *rapid.T) {
	e, err := etcd.Open(m.cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.e = e
}

func drawKey(t *rapid.T) storage.Key { return rapid.SampledFrom(modelKeys).Draw(t, "key") }

func drawValue(t *rapid.T) []byte { return rapid.SliceOfN(rapid.Byte(), 0, 4).Draw(t, "value") }

func (m *modelMachine) put(t *rapid.T) {
	k, v := drawKey(t), drawValue(t)
	storagetest.SameError(t, "put", m.e.Put(k, v), m.mem.Put(k, v))
}

func (m *modelMachine) delete(t *rapid.T) {
	k := drawKey(t)
	storagetest.SameError(t, "delete", m.e.Delete(k), m.mem.Delete(k))
}

// writeBatch writes a batch of puts and deletes, often of one key several
// times, sometimes poisoned by a zero key, which both engines must refuse
// whole, and sometimes with conditions, which both must find holding or
// not alike.
func (m *modelMachine) writeBatch(t *rapid.T) {
	var b storage.Batch
	n := rapid.IntRange(1, 8).Draw(t, "mutations")
	poison := rapid.IntRange(-1, 4*n).Draw(t, "poison at")
	for i := range n {
		if i == poison {
			b.Delete(storage.Key{})
		}
		if rapid.Bool().Draw(t, "delete") {
			b.Delete(drawKey(t))
		} else {
			b.Put(drawKey(t), drawValue(t))
		}
	}
	storagetest.DrawConditions(t, &b, m.mem, drawKey)
	if rapid.Bool().Draw(t, "durable") {
		storagetest.SameError(t, "write durable", m.e.WriteDurable(&b), m.mem.WriteDurable(&b))
	} else {
		storagetest.SameError(t, "write", m.e.Write(&b), m.mem.Write(&b))
	}
}

func (m *modelMachine) deleteRange(t *rapid.T) {
	r := rapid.SampledFrom(modelRanges).Draw(t, "range")
	storagetest.SameError(t, "delete range "+r.String(), m.e.DeleteRange(r), m.mem.DeleteRange(r))
}

func (m *modelMachine) get(t *rapid.T) { storagetest.SameGet(t, m.e, m.mem, drawKey(t)) }

func (m *modelMachine) scan(t *rapid.T) {
	limit := rapid.IntRange(0, 8).Draw(t, "stop after")
	storagetest.SameScan(t, m.e, m.mem, rapid.SampledFrom(modelRanges).Draw(t, "range"), limit)
}

// snapshotOp opens a snapshot on both engines, or reads or closes the open
// one. A snapshot a compaction has passed must read ErrCompacted.
func (m *modelMachine) snapshotOp(t *rapid.T) {
	if m.snap == nil {
		snap, err := m.e.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		m.snap = snap.(*etcd.Snapshot)
		if m.memSnap, err = m.mem.Snapshot(); err != nil {
			t.Fatal(err)
		}
		m.compacted = false
		return
	}
	k, r := drawKey(t), rapid.SampledFrom(modelRanges).Draw(t, "range")
	switch op := rapid.IntRange(0, 2).Draw(t, "snapshot op"); {
	case op == 2:
		m.closeSnapshots(t)
	case m.compacted:
		_, err := m.snap.Get(k)
		wantCompacted(t, "snapshot get", err)
		_, err = storagetest.ScanLimit(m.snap, r, 0)
		wantCompacted(t, "snapshot scan", err)
	case op == 0:
		storagetest.SameGet(t, m.snap, m.memSnap, k)
	default:
		storagetest.SameScan(t, m.snap, m.memSnap, r, 0)
	}
}

func wantCompacted(t *rapid.T, what string, err error) {
	if !errors.Is(err, etcd.ErrCompacted) {
		t.Fatalf("%s after compaction: %v, want ErrCompacted", what, err)
	}
}

func (m *modelMachine) closeSnapshots(t *rapid.T) {
	if m.snap == nil {
		return
	}
	storagetest.SameError(t, "close snapshot", m.snap.Close(), m.memSnap.Close())
	m.snap, m.memSnap = nil, nil
}

// reopen closes the engine and opens another on the same namespace, with
// another page size: the rows are the cluster's, not the client's. An open
// snapshot is closed by the engine's Close.
func (m *modelMachine) reopen(t *rapid.T) {
	if m.snap != nil {
		m.closeSnapshots(t)
	}
	if err := m.e.Close(); err != nil {
		t.Fatal(err)
	}
	m.cfg.PageSize = rapid.SampledFrom([]int{1, 2, 3, 0}).Draw(t, "page size")
	m.open(t)
}

// compact compacts the cluster at its current revision, one time in four:
// compaction is a cluster-wide operation, and costs a disk sync.
func (m *modelMachine) compact(t *rapid.T) {
	if rapid.IntRange(0, 3).Draw(t, "compact now") != 0 {
		return
	}
	if rev := compactNow(t, m.raw); m.snap != nil && m.snap.Revision() < rev {
		m.compacted = true
	}
}

// check compares both engines in full. It runs at the end of each check:
// run after every step, it would triple the test's requests, and the get
// and scan steps compare the engines along the way.
func (m *modelMachine) check(t *rapid.T) {
	for _, cf := range modelFamilies {
		storagetest.SameScan(t, m.e, m.mem, storage.SystemScope{}.FullFamily(cf), 0)
	}
}
