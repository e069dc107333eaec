package storagetest

import (
	"errors"
	"math"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
)

// testModel is the model-based test: it runs random operations on the
// backend's engine and on MemoryEngine, the model, side by side, and
// demands the same answers. Where the range matrix checks every range
// constructor once, this test checks interleavings: writes, batches with
// conditions, range deletes, snapshots held across them, scans stopped
// early, the store closed and opened again (Harness.NewStore), and the
// backend's own upkeep (Harness.Upkeep).
//
// Its key space is small, so that operations collide, and its scopes are
// the suite's tenants at the edges of the byte space, so that a range
// overshooting its scope by one byte lands in a neighbour's rows. Each
// check starts from an empty store: rather than create a store per check
// (slow on a disk: RocksDB syncs the creation of every family), one store
// is emptied with a range delete per family, which the range deletes
// themselves exercise.
func testModel(t *testing.T, h Harness) {
	m := &modelMachine{h: h}
	if h.NewStore != nil {
		m.open = h.NewStore(t)
	} else {
		m.e = open(t, h)
	}
	t.Cleanup(func() {
		if m.e != nil {
			closeEngine(t, m.e)
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		m.reset(t)
		ops := map[string]func(*rapid.T){
			"put":          m.put,
			"delete":       m.delete,
			"write batch":  m.writeBatch,
			"delete range": m.deleteRange,
			"get":          m.get,
			"scan":         m.scan,
			"snapshot":     m.snapshot,
		}
		if m.open != nil {
			ops["reopen"] = m.reopen
		}
		for name, f := range h.Upkeep {
			ops[name] = func(t *rapid.T) { m.upkeep(t, f) }
		}
		if !h.Remote {
			ops[""] = m.check // after every step
		}
		t.Repeat(ops)
		if h.Remote {
			m.check(t)
		}
		m.closeSnapshots(t)
	})
}

// modelMachine holds the engine, the model, and the snapshots open on both.
type modelMachine struct {
	h    Harness
	open func(*rapid.T) storage.Engine // nil: the engine is never reopened
	e    storage.Engine
	mem  *storage.MemoryEngine

	snap    storage.Snapshot // nil when no snapshot is open
	memSnap storage.Snapshot
	// snapErr is what every read of snap returns once the backend's
	// upkeep ended it (a compaction past its revision), or nil.
	snapErr error
}

// reset empties the store and starts a new model. A check that failed
// inside reopen may have left the engine closed, or not opened it again;
// shrinking runs more checks after it, so reset opens it again.
func (m *modelMachine) reset(t *rapid.T) {
	m.closeSnapshots(t)
	if m.e == nil {
		m.e = m.open(t)
	}
	for _, cf := range storage.Families() {
		err := m.e.DeleteRange(storage.SystemScope{}.FullFamily(cf))
		if errors.Is(err, storage.ErrClosed) && m.open != nil {
			m.e = m.open(t)
			err = m.e.DeleteRange(storage.SystemScope{}.FullFamily(cf))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	m.mem = storage.NewMemoryEngine()
}

func (m *modelMachine) put(t *rapid.T) {
	k, v := drawModelKey(t, "key"), drawModelValue(t)
	sameError(t, "put", m.e.Put(k, v), m.mem.Put(k, v))
}

func (m *modelMachine) delete(t *rapid.T) {
	k := drawModelKey(t, "key")
	sameError(t, "delete", m.e.Delete(k), m.mem.Delete(k))
}

// writeBatch writes a batch of puts and deletes, sometimes poisoned by a
// put or a delete of the zero key, which both engines must refuse whole,
// and sometimes with conditions, which both must find holding or not
// alike.
func (m *modelMachine) writeBatch(t *rapid.T) {
	var b storage.Batch
	n := rapid.IntRange(1, 8).Draw(t, "mutations")
	poison := rapid.IntRange(-1, 4*n).Draw(t, "poison at")
	for i := range n {
		if i == poison {
			if rapid.Bool().Draw(t, "poison delete") {
				b.Delete(storage.Key{})
			} else {
				b.Put(storage.Key{}, nil)
			}
		}
		if rapid.Bool().Draw(t, "delete") {
			b.Delete(drawModelKey(t, "key"))
		} else {
			b.Put(drawModelKey(t, "key"), drawModelValue(t))
		}
	}
	drawConditions(t, &b, m.mem, func(t *rapid.T) storage.Key { return drawModelKey(t, "condition key") })
	if rapid.Bool().Draw(t, "durable") {
		sameError(t, "write durable", m.e.WriteDurable(&b), m.mem.WriteDurable(&b))
	} else {
		sameError(t, "write", m.e.Write(&b), m.mem.Write(&b))
	}
}

func (m *modelMachine) deleteRange(t *rapid.T) {
	r := drawModelRange(t)
	sameError(t, "delete range "+r.String(), m.e.DeleteRange(r), m.mem.DeleteRange(r))
}

func (m *modelMachine) get(t *rapid.T) { sameGet(t, m.e, m.mem, drawModelKey(t, "key")) }

func (m *modelMachine) scan(t *rapid.T) {
	limit := rapid.IntRange(0, 20).Draw(t, "stop after")
	sameScan(t, m.e, m.mem, drawModelRange(t), limit)
}

// snapshot opens a snapshot on both engines, or reads or closes the open
// one. A snapshot the backend's upkeep ended must answer every read with
// the error the upkeep named.
func (m *modelMachine) snapshot(t *rapid.T) {
	if m.snap == nil {
		var err error
		if m.snap, err = m.e.Snapshot(); err != nil {
			t.Fatal(err)
		}
		if m.memSnap, err = m.mem.Snapshot(); err != nil {
			t.Fatal(err)
		}
		m.snapErr = nil
		return
	}
	switch op := rapid.IntRange(0, 2).Draw(t, "snapshot op"); {
	case op == 2:
		m.closeSnapshots(t)
	case m.snapErr != nil:
		_, err := m.snap.Get(drawModelKey(t, "key"))
		m.wantSnapErr(t, "snapshot get", err)
		_, err = ScanLimit(m.snap, drawModelRange(t), 0)
		m.wantSnapErr(t, "snapshot scan", err)
	case op == 0:
		sameGet(t, m.snap, m.memSnap, drawModelKey(t, "key"))
	default:
		sameScan(t, m.snap, m.memSnap, drawModelRange(t), 0)
	}
}

func (m *modelMachine) wantSnapErr(t *rapid.T, what string, err error) {
	if !errors.Is(err, m.snapErr) {
		t.Fatalf("%s after the backend's upkeep ended the snapshot: %v, want %v", what, err, m.snapErr)
	}
}

func (m *modelMachine) closeSnapshots(t *rapid.T) {
	if m.snap == nil {
		return
	}
	sameError(t, "close snapshot", m.snap.Close(), m.memSnap.Close())
	m.snap, m.memSnap, m.snapErr = nil, nil, nil
}

// reopen closes the engine and opens its store again; its contents must
// survive unchanged. An open snapshot is closed first. It is rare, because
// opening a store on a disk syncs files.
func (m *modelMachine) reopen(t *rapid.T) {
	if !rare(t, "reopen now") {
		return
	}
	m.closeSnapshots(t)
	err := m.e.Close()
	m.e = nil // reset opens it again if this check fails before open returns
	if err != nil {
		t.Fatal(err)
	}
	m.e = m.open(t)
}

// upkeep runs one of the backend's upkeep operations, one time in four:
// they cost syncs or cluster-wide work.
func (m *modelMachine) upkeep(t *rapid.T, f func(*rapid.T, storage.Engine, storage.Snapshot) error) {
	if !rare(t, "upkeep now") {
		return
	}
	if err := f(t, m.e, m.snap); err != nil && m.snap != nil && m.snapErr == nil {
		m.snapErr = err
	}
}

// rare draws true one time in four.
func rare(t *rapid.T, label string) bool { return rapid.IntRange(0, 3).Draw(t, label) == 0 }

// check compares both engines in full.
func (m *modelMachine) check(t *rapid.T) {
	for _, cf := range storage.Families() {
		sameScan(t, m.e, m.mem, storage.SystemScope{}.FullFamily(cf), 0)
	}
}

// The model's key space: few values of each component, at the edges of
// their ranges, so that keys collide and bounds are tested where they
// carry.
var (
	modelIDs   = []uuid.UUID{{15: 1}, uuid.MustParse("812d794a-65d7-4390-aee7-c589efa2328a"), uuid.Max}
	modelTimes = []storage.Timestamp{storage.MinTimestamp, -1, 0, 1, storage.MaxTimestamp}
	modelHash  = []uint64{0, 1, math.MaxUint64}
	modelState = []storage.JobState{storage.JobQueued, storage.JobDead}
)

// modelParts are the components one key or range is built from.
type modelParts struct {
	system bool                // the system scope instead of s
	s      storage.TenantScope // the first tenant's when system is set
	cf     storage.ColumnFamily
	id, to uuid.UUID
	t1, t2 storage.Timestamp
	h      uint64
	state  storage.JobState
	prio   uint8
}

func drawModelParts(t *rapid.T) modelParts {
	scope := rapid.IntRange(0, len(tenants)).Draw(t, "scope")
	p := modelParts{
		s:     tenants[0].tenant,
		cf:    rapid.SampledFrom(storage.Families()).Draw(t, "family"),
		id:    rapid.SampledFrom(modelIDs).Draw(t, "id"),
		to:    rapid.SampledFrom(modelIDs).Draw(t, "to"),
		t1:    rapid.SampledFrom(modelTimes).Draw(t, "t1"),
		t2:    rapid.SampledFrom(modelTimes).Draw(t, "t2"),
		h:     rapid.SampledFrom(modelHash).Draw(t, "hash"),
		state: rapid.SampledFrom(modelState).Draw(t, "state"),
		prio:  rapid.SampledFrom([]uint8{0, math.MaxUint8}).Draw(t, "prio"),
	}
	if scope == len(tenants) {
		p.system = true
	} else {
		p.s = tenants[scope].tenant
	}
	return p
}

// modelKeyMakers build one key of each layout. A system part builds the
// layouts that exist under the system scope, and the others from the first
// tenant.
var modelKeyMakers = []func(p modelParts) storage.Key{
	func(p modelParts) storage.Key { return storage.NodeVersionKey(p.s, p.id, p.t1, p.t2) },
	func(p modelParts) storage.Key { return storage.EdgeVersionKey(p.s, p.id, p.t1, p.t2) },
	func(p modelParts) storage.Key {
		return storage.AdjacencyOutKey(p.s, p.id, storage.EdgeTypeHash(p.h), p.t1, p.t2, p.to)
	},
	func(p modelParts) storage.Key {
		return storage.AdjacencyInKey(p.s, p.id, storage.EdgeTypeHash(p.h), p.t1, p.t2, p.to)
	},
	func(p modelParts) storage.Key {
		return storage.ValidTimeIndexKey(p.s, p.t1, p.t2, p.id, storage.IndexNode)
	},
	func(p modelParts) storage.Key {
		return storage.TxTimeIndexKey(p.s, p.t1, p.t2, p.id, storage.IndexEdge)
	},
	func(p modelParts) storage.Key { return storage.VectorKey(p.s, p.id, storage.ModelID(p.h), p.t1, p.t2) },
	func(p modelParts) storage.Key {
		if p.system {
			return storage.SystemScope{}.VectorModelKey(storage.ModelID(p.h), p.t1)
		}
		return storage.SchemaKey(p.s, storage.LabelHash(p.h), p.t1)
	},
	func(p modelParts) storage.Key {
		chunk := uint64(p.t1)
		if chunk == storage.RedactionChunkIndex { // the reserved redaction slot, built below
			chunk = 0
		}
		return storage.SourceChunkKey(p.s, p.id, chunk)
	},
	func(p modelParts) storage.Key { return storage.RedactionRecordKey(p.s, p.id) },
	func(p modelParts) storage.Key {
		start := uint64(p.t1)
		if start == math.MaxUint64 { // the fact shape's marker, built below
			start = 0
		}
		return storage.SpanKey(p.s, p.id, start, p.h)
	},
	func(p modelParts) storage.Key { return storage.FactSpanKey(p.s, p.id, p.id, uint64(p.t1), p.h) },
	func(p modelParts) storage.Key { return storage.TraceKey(p.s, p.id) },
	func(p modelParts) storage.Key {
		if p.system {
			return storage.SystemScope{}.JobKey(p.state, p.prio, p.t1, p.id)
		}
		return storage.JobKey(p.s, p.state, p.prio, p.t1, p.id)
	},
	func(p modelParts) storage.Key { return storage.BitmapAllocKey(p.s, storage.LabelHash(p.h)) },
	func(p modelParts) storage.Key { return storage.BitmapRevMapKey(p.s, storage.LabelHash(p.h), p.id) },
	func(p modelParts) storage.Key {
		return storage.BitmapPostingKey(p.s, storage.LabelHash(p.h), storage.PropertyHash(p.h), storage.BucketHash(p.t1))
	},
}

// modelRangeMakers build one range per constructor. A system part builds
// the system ranges.
var modelRangeMakers = []func(p modelParts) (storage.ScanRange, error){
	func(p modelParts) (storage.ScanRange, error) {
		if p.system {
			return storage.SystemScope{}.FullFamily(p.cf), nil
		}
		return storage.TenantAll(p.s, p.cf), nil
	},
	func(p modelParts) (storage.ScanRange, error) {
		if p.system {
			return storage.SystemScope{}.JobsInState(p.state), nil
		}
		return storage.JobsInStatePriority(p.s, p.state, p.prio), nil
	},
	func(p modelParts) (storage.ScanRange, error) {
		if p.system {
			return storage.SystemScope{}.VectorModelHistory(storage.ModelID(p.h)), nil
		}
		return storage.SchemaHistory(p.s, storage.LabelHash(p.h)), nil
	},
	func(p modelParts) (storage.ScanRange, error) { return storage.NodeHistory(p.s, p.id), nil },
	func(p modelParts) (storage.ScanRange, error) { return storage.EdgeHistory(p.s, p.id), nil },
	func(p modelParts) (storage.ScanRange, error) { return storage.AdjacencyOutRange(p.s, p.id), nil },
	func(p modelParts) (storage.ScanRange, error) {
		return storage.AdjacencyInTypeRange(p.s, p.id, storage.EdgeTypeHash(p.h)), nil
	},
	func(p modelParts) (storage.ScanRange, error) { return storage.ValidTimeFrom(p.s, p.t1), nil },
	func(p modelParts) (storage.ScanRange, error) { return storage.TxTimeBetween(p.s, p.t1, p.t2) },
	func(p modelParts) (storage.ScanRange, error) {
		return storage.VectorHistory(p.s, p.id, storage.ModelID(p.h)), nil
	},
	func(p modelParts) (storage.ScanRange, error) { return storage.SourceRows(p.s, p.id), nil },
	func(p modelParts) (storage.ScanRange, error) { return storage.FactSpans(p.s, p.id), nil },
	func(p modelParts) (storage.ScanRange, error) { return storage.SourceSpans(p.s, p.id), nil },
	func(p modelParts) (storage.ScanRange, error) { return storage.JobsInState(p.s, p.state), nil },
	func(p modelParts) (storage.ScanRange, error) {
		return storage.BitmapPostingsRange(p.s, storage.LabelHash(p.h), storage.PropertyHash(p.h)), nil
	},
	func(p modelParts) (storage.ScanRange, error) {
		return storage.TenantAllAfterEntity(p.s, storage.NodeVersions, p.id)
	},
}

func drawModelKey(t *rapid.T, label string) storage.Key {
	p := drawModelParts(t)
	k := rapid.SampledFrom(modelKeyMakers).Draw(t, label+" layout")(p)
	if !k.Valid() {
		t.Fatalf("key maker built an invalid key from %+v", p)
	}
	return k
}

// drawModelRange returns a range of a constructor, or, sometimes, its rest
// after a cursor key, when the cursor lies inside it. Constructors that
// refuse their parts (an empty time interval) fall back to the tenant's
// family.
func drawModelRange(t *rapid.T) storage.ScanRange {
	p := drawModelParts(t)
	r, err := rapid.SampledFrom(modelRangeMakers).Draw(t, "range constructor")(p)
	if err != nil || !r.Valid() {
		r = storage.TenantAll(p.s, storage.NodeVersions)
	}
	if rare(t, "after cursor") {
		if rest, err := r.After(drawModelKey(t, "cursor")); err == nil {
			r = rest
		}
	}
	return r
}

func drawModelValue(t *rapid.T) []byte {
	return rapid.SliceOfN(rapid.Byte(), 0, 8).Draw(t, "value")
}
