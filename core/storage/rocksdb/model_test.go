package rocksdb_test

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
)

// The model test runs random operations against the RocksDB engine and
// storage.MemoryEngine side by side and demands identical answers. Its key
// space is small, so that operations collide, and its scopes sit at the
// edges of the byte space, so that a range overshooting its scope by one
// byte lands in a neighbour's rows: A just above the system prefix; B all
// 0xFF after its first byte, so its upper bound carries; C exactly at B's
// upper bound; D all 0xFF, without an upper bound.
var (
	modelScopes = []storage.TenantScope{
		mustScope("00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000001"),
		mustScope("7fffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
		mustScope("80000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001"),
		mustScope("ffffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
	}
	modelIDs   = []uuid.UUID{uuid.MustParse("00000000-0000-0000-0000-000000000001"), uuid.MustParse("812d794a-65d7-4390-aee7-c589efa2328a"), uuid.Max}
	modelTimes = []storage.Timestamp{storage.MinTimestamp, -1, 0, 1, storage.MaxTimestamp}
	modelHash  = []uint64{0, 1, ^uint64(0)}
	modelState = []storage.JobState{storage.JobQueued, storage.JobDead}
)

func mustScope(tenant, organization string) storage.TenantScope {
	s, err := storage.NewTenantScope(uuid.MustParse(tenant), uuid.MustParse(organization))
	if err != nil {
		panic(err)
	}
	return s
}

// parts are the components one key or range is built from.
type parts struct {
	system bool // the system scope instead of s
	s      storage.TenantScope
	id, to uuid.UUID
	t1, t2 storage.Timestamp
	h      uint64
	state  storage.JobState
	prio   uint8
}

func drawParts(t *rapid.T) parts {
	scope := rapid.IntRange(0, len(modelScopes)).Draw(t, "scope")
	p := parts{
		id:    rapid.SampledFrom(modelIDs).Draw(t, "id"),
		to:    rapid.SampledFrom(modelIDs).Draw(t, "to"),
		t1:    rapid.SampledFrom(modelTimes).Draw(t, "t1"),
		t2:    rapid.SampledFrom(modelTimes).Draw(t, "t2"),
		h:     rapid.SampledFrom(modelHash).Draw(t, "hash"),
		state: rapid.SampledFrom(modelState).Draw(t, "state"),
		prio:  rapid.SampledFrom([]uint8{0, 0xFF}).Draw(t, "prio"),
	}
	if scope == len(modelScopes) {
		p.system = true
	} else {
		p.s = modelScopes[scope]
	}
	return p
}

// keyMakers build one key of each layout. A system part builds the layouts
// that exist under the system scope, and the others from the first tenant.
var keyMakers = []func(p parts) storage.Key{
	func(p parts) storage.Key { return storage.NodeVersionKey(p.s, p.id, p.t1, p.t2) },
	func(p parts) storage.Key { return storage.EdgeVersionKey(p.s, p.id, p.t1, p.t2) },
	func(p parts) storage.Key {
		return storage.AdjacencyOutKey(p.s, p.id, storage.EdgeTypeHash(p.h), p.t1, p.t2, p.to)
	},
	func(p parts) storage.Key {
		return storage.AdjacencyInKey(p.s, p.id, storage.EdgeTypeHash(p.h), p.t1, p.t2, p.to)
	},
	func(p parts) storage.Key { return storage.ValidTimeIndexKey(p.s, p.t1, p.t2, p.id, storage.IndexNode) },
	func(p parts) storage.Key { return storage.TxTimeIndexKey(p.s, p.t1, p.t2, p.id, storage.IndexEdge) },
	func(p parts) storage.Key { return storage.VectorKey(p.s, p.id, storage.ModelID(p.h), p.t1, p.t2) },
	func(p parts) storage.Key {
		if p.system {
			return storage.SystemScope{}.VectorModelKey(storage.ModelID(p.h), p.t1)
		}
		return storage.SchemaKey(p.s, storage.LabelHash(p.h), p.t1)
	},
	func(p parts) storage.Key {
		chunk := uint64(p.t1)
		if chunk == storage.RedactionChunkIndex { // the reserved redaction slot, built below
			chunk = 0
		}
		return storage.SourceChunkKey(p.s, p.id, chunk)
	},
	func(p parts) storage.Key { return storage.RedactionRecordKey(p.s, p.id) },
	func(p parts) storage.Key {
		start := uint64(p.t1)
		if start == math.MaxUint64 { // the fact shape's marker, built below
			start = 0
		}
		return storage.SpanKey(p.s, p.id, start, p.h)
	},
	func(p parts) storage.Key { return storage.FactSpanKey(p.s, p.id, p.id, uint64(p.t1), p.h) },
	func(p parts) storage.Key { return storage.TraceKey(p.s, p.id) },
	func(p parts) storage.Key {
		if p.system {
			return storage.SystemScope{}.JobKey(p.state, p.prio, p.t1, p.id)
		}
		return storage.JobKey(p.s, p.state, p.prio, p.t1, p.id)
	},
	func(p parts) storage.Key { return storage.BitmapAllocKey(p.s, storage.LabelHash(p.h)) },
	func(p parts) storage.Key { return storage.BitmapRevMapKey(p.s, storage.LabelHash(p.h), p.id) },
	func(p parts) storage.Key {
		return storage.BitmapPostingKey(p.s, storage.LabelHash(p.h), storage.PropertyHash(p.h), storage.BucketHash(p.t1))
	},
}

// rangeMakers build one range per constructor. A system part builds the
// system ranges.
var rangeMakers = []func(p parts) (storage.ScanRange, error){
	func(p parts) (storage.ScanRange, error) {
		cf := storage.Families()[int(p.h%uint64(len(storage.Families())))]
		if p.system {
			return storage.SystemScope{}.FullFamily(cf), nil
		}
		return storage.TenantAll(p.s, cf), nil
	},
	func(p parts) (storage.ScanRange, error) {
		if p.system {
			return storage.SystemScope{}.JobsInState(p.state), nil
		}
		return storage.JobsInStatePriority(p.s, p.state, p.prio), nil
	},
	func(p parts) (storage.ScanRange, error) {
		if p.system {
			return storage.SystemScope{}.VectorModelHistory(storage.ModelID(p.h)), nil
		}
		return storage.SchemaHistory(p.s, storage.LabelHash(p.h)), nil
	},
	func(p parts) (storage.ScanRange, error) { return storage.NodeHistory(p.s, p.id), nil },
	func(p parts) (storage.ScanRange, error) { return storage.EdgeHistory(p.s, p.id), nil },
	func(p parts) (storage.ScanRange, error) { return storage.AdjacencyOutRange(p.s, p.id), nil },
	func(p parts) (storage.ScanRange, error) {
		return storage.AdjacencyInTypeRange(p.s, p.id, storage.EdgeTypeHash(p.h)), nil
	},
	func(p parts) (storage.ScanRange, error) { return storage.ValidTimeFrom(p.s, p.t1), nil },
	func(p parts) (storage.ScanRange, error) { return storage.TxTimeBetween(p.s, p.t1, p.t2) },
	func(p parts) (storage.ScanRange, error) {
		return storage.VectorHistory(p.s, p.id, storage.ModelID(p.h)), nil
	},
	func(p parts) (storage.ScanRange, error) { return storage.SourceRows(p.s, p.id), nil },
	func(p parts) (storage.ScanRange, error) { return storage.FactSpans(p.s, p.id), nil },
	func(p parts) (storage.ScanRange, error) { return storage.SourceSpans(p.s, p.id), nil },
	func(p parts) (storage.ScanRange, error) { return storage.JobsInState(p.s, p.state), nil },
	func(p parts) (storage.ScanRange, error) {
		return storage.BitmapPostingsRange(p.s, storage.LabelHash(p.h), storage.PropertyHash(p.h)), nil
	},
	func(p parts) (storage.ScanRange, error) {
		return storage.TenantAllAfterEntity(p.s, storage.NodeVersions, p.id)
	},
}

func drawKey(t *rapid.T, label string) storage.Key {
	p := drawParts(t)
	if p.system {
		p.s = modelScopes[0]
	}
	k := rapid.SampledFrom(keyMakers).Draw(t, label+" layout")(p)
	if !k.Valid() {
		t.Fatalf("key maker built an invalid key from %+v", p)
	}
	return k
}

// drawRange returns a range of a constructor, or, sometimes, its rest after
// a cursor key, when the cursor lies inside it. Constructors that refuse
// their parts (an empty time interval) fall back to the tenant's family.
func drawRange(t *rapid.T) storage.ScanRange {
	p := drawParts(t)
	if p.system {
		p.s = modelScopes[0]
	}
	r, err := rapid.SampledFrom(rangeMakers).Draw(t, "range constructor")(p)
	if err != nil || !r.Valid() {
		r = storage.TenantAll(p.s, storage.NodeVersions)
	}
	if rapid.IntRange(0, 3).Draw(t, "after cursor") == 0 {
		if rest, err := r.After(drawKey(t, "cursor")); err == nil {
			r = rest
		}
	}
	return r
}

func drawValue(t *rapid.T) []byte {
	return rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "value")
}

// modelMachine holds the two engines and the snapshots open on both.
type modelMachine struct {
	cfg       rocksdb.Config
	rocks     *rocksdb.Engine
	mem       *storage.MemoryEngine
	rocksSnap storage.Snapshot // nil when no snapshot is open
	memSnap   storage.Snapshot
}

// TestModel is the model-based test. Each check starts from an empty
// store: rather than create a store per check (slow: 14 families fsync
// their creation), one store is opened and emptied with one range
// tombstone per family, which the tombstones themselves exercise.
func TestModel(t *testing.T) {
	t.Parallel()
	cfg := storagetest.RocksDBConfig(filepath.Join(t.TempDir(), "store"))
	m := &modelMachine{cfg: cfg, rocks: storagetest.OpenRocksDB(t, cfg.Path)}
	t.Cleanup(func() { m.rocks.Close() })
	rapid.Check(t, func(t *rapid.T) {
		m.reset(t)
		t.Repeat(map[string]func(*rapid.T){
			"put":          m.put,
			"delete":       m.delete,
			"write batch":  m.writeBatch,
			"delete range": m.deleteRange,
			"get":          m.get,
			"scan":         m.scan,
			"snapshot":     m.snapshot,
			"flush":        m.flush,
			"reopen":       m.reopen,
			"":             m.check,
		})
		m.closeSnapshots(t)
	})
}

// reset empties the RocksDB store and starts a new memory engine. A check
// that failed inside reopen may have left the engine closed; shrinking runs
// more checks after it, so reset opens it again.
func (m *modelMachine) reset(t *rapid.T) {
	m.closeSnapshots(t)
	for _, cf := range storage.Families() {
		err := m.rocks.DeleteRange(storage.SystemScope{}.FullFamily(cf))
		if errors.Is(err, storage.ErrClosed) {
			m.openRocks(t)
			err = m.rocks.DeleteRange(storage.SystemScope{}.FullFamily(cf))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	m.mem = storage.NewMemoryEngine()
}

func (m *modelMachine) openRocks(t *rapid.T) {
	rocks, err := rocksdb.Open(m.cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.rocks = rocks
}

func (m *modelMachine) put(t *rapid.T) {
	k, v := drawKey(t, "key"), drawValue(t)
	storagetest.SameError(t, "put", m.rocks.Put(k, v), m.mem.Put(k, v))
}

func (m *modelMachine) delete(t *rapid.T) {
	k := drawKey(t, "key")
	storagetest.SameError(t, "delete", m.rocks.Delete(k), m.mem.Delete(k))
}

// writeBatch writes a batch of puts and deletes, sometimes poisoned by a
// zero key, which both engines must refuse whole, and sometimes with
// conditions, which both must find holding or not alike.
func (m *modelMachine) writeBatch(t *rapid.T) {
	var b storage.Batch
	n := rapid.IntRange(1, 8).Draw(t, "mutations")
	poison := rapid.IntRange(-1, 4*n).Draw(t, "poison at")
	for i := range n {
		if i == poison {
			b.Put(storage.Key{}, nil)
		}
		if rapid.Bool().Draw(t, "delete") {
			b.Delete(drawKey(t, "key"))
		} else {
			b.Put(drawKey(t, "key"), drawValue(t))
		}
	}
	storagetest.DrawConditions(t, &b, m.mem, func(t *rapid.T) storage.Key { return drawKey(t, "condition key") })
	if rapid.Bool().Draw(t, "durable") {
		storagetest.SameError(t, "write durable", m.rocks.WriteDurable(&b), m.mem.WriteDurable(&b))
	} else {
		storagetest.SameError(t, "write", m.rocks.Write(&b), m.mem.Write(&b))
	}
}

func (m *modelMachine) deleteRange(t *rapid.T) {
	r := drawRange(t)
	storagetest.SameError(t, "delete range "+r.String(), m.rocks.DeleteRange(r), m.mem.DeleteRange(r))
}

func (m *modelMachine) get(t *rapid.T) {
	storagetest.SameGet(t, m.rocks, m.mem, drawKey(t, "key"))
}

func (m *modelMachine) scan(t *rapid.T) {
	limit := rapid.IntRange(0, 20).Draw(t, "stop after")
	storagetest.SameScan(t, m.rocks, m.mem, drawRange(t), limit)
}

// snapshot opens a snapshot on both engines, or reads or closes the open
// one.
func (m *modelMachine) snapshot(t *rapid.T) {
	if m.rocksSnap == nil {
		var err error
		if m.rocksSnap, err = m.rocks.Snapshot(); err != nil {
			t.Fatal(err)
		}
		if m.memSnap, err = m.mem.Snapshot(); err != nil {
			t.Fatal(err)
		}
		return
	}
	switch rapid.IntRange(0, 2).Draw(t, "snapshot op") {
	case 0:
		storagetest.SameGet(t, m.rocksSnap, m.memSnap, drawKey(t, "key"))
	case 1:
		storagetest.SameScan(t, m.rocksSnap, m.memSnap, drawRange(t), 0)
	default:
		m.closeSnapshots(t)
	}
}

func (m *modelMachine) closeSnapshots(t *rapid.T) {
	if m.rocksSnap == nil {
		return
	}
	storagetest.SameError(t, "close snapshot", m.rocksSnap.Close(), m.memSnap.Close())
	m.rocksSnap, m.memSnap = nil, nil
}

// flush writes one family's memtable to a table file, so that reads go
// through the table's prefix bloom and whole-key filters too. It is rare,
// because a flush syncs files.
func (m *modelMachine) flush(t *rapid.T) {
	if !rare(t, "flush now") {
		return
	}
	cf := rapid.SampledFrom(storage.Families()).Draw(t, "family")
	if err := rocksdb.FlushFamily(m.rocks, cf); err != nil {
		t.Fatal(err)
	}
}

// reopen closes the RocksDB engine and opens it again; its contents must
// survive unchanged. It is rare, because opening syncs files.
func (m *modelMachine) reopen(t *rapid.T) {
	if !rare(t, "reopen now") {
		return
	}
	m.closeSnapshots(t)
	if err := m.rocks.Close(); err != nil {
		t.Fatal(err)
	}
	m.openRocks(t)
}

// rare draws true one time in four.
func rare(t *rapid.T, label string) bool { return rapid.IntRange(0, 3).Draw(t, label) == 0 }

// check compares both engines in full after every step.
func (m *modelMachine) check(t *rapid.T) {
	for _, cf := range storage.Families() {
		storagetest.SameScan(t, m.rocks, m.mem, storage.SystemScope{}.FullFamily(cf), 0)
	}
}
