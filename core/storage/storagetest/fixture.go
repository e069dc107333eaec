package storagetest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// scope is one key scope of a fixture: a tenant, or the system scope.
type scope struct {
	name   string
	tenant storage.TenantScope // zero for the system scope
	system bool
}

// owns reports whether key bytes carry this scope in their first 32 bytes.
func (s scope) owns(key []byte) bool {
	var ks storage.KeyScope
	copy(ks.Tenant[:], key[:16])
	copy(ks.Organization[:], key[16:storage.ScopeLen])
	if s.system {
		return ks.IsSystem()
	}
	return ks.Is(s.tenant)
}

func mustTenant(name, tenant, organization string) scope {
	ts, err := storage.NewTenantScope(uuid.MustParse(tenant), uuid.MustParse(organization))
	if err != nil {
		panic(err)
	}
	return scope{name: name, tenant: ts}
}

// The fixture's scopes sit at the edges of the byte space, so that a range
// that overshoots its scope by one byte lands in a neighbour's rows: A lies
// just above the system prefix; B's scope is all 0xFF after its first byte,
// so its upper bound carries into that byte; C starts exactly at that upper
// bound; D is all 0xFF, has no successor, and its ranges run to the end of
// the family.
var (
	systemScope = scope{name: "system", system: true}
	tenantA     = mustTenant("A", "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000001")
	tenantB     = mustTenant("B", "7fffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff")
	tenantC     = mustTenant("C", "80000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001")
	tenantD     = mustTenant("D", "ffffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff")

	tenants   = []scope{tenantA, tenantB, tenantC, tenantD}
	allScopes = []scope{systemScope, tenantA, tenantB, tenantC, tenantD}
)

// values are the component values a fixture combines. Each range
// constructor selects on some components (ids, hashes, times, priorities);
// the tails fill the components after them.
type values struct {
	ids     []uuid.UUID
	hashes  []uint64
	times   []storage.Timestamp
	prios   []uint8
	tails   []tail
	digests [][]byte
}

// tail is one choice of the trailing key components, which no range
// selects on.
type tail struct {
	id   uuid.UUID
	u64  uint64
	u32  uint32
	inv  storage.Timestamp // a time the key stores inverted
	asc  storage.Timestamp // a time the key stores ascending
	kind storage.IndexKind
}

// Tails whose bytes are lowest, middling and highest: every selected prefix
// gets a row at its very start and at its very end, so that a bound that is
// off by one byte includes or drops a row.
var (
	lowTail  = tail{id: uuid.MustParse("00000000-0000-0000-0000-000000000001"), inv: storage.MaxTimestamp, asc: storage.MinTimestamp, kind: storage.IndexNode}
	midTail  = tail{id: uuid.MustParse("80000000-0000-0000-0000-000000000000"), u64: 1 << 63, u32: 1 << 31, kind: storage.IndexNode}
	highTail = tail{id: uuid.MustParse("ffffffff-ffff-ffff-ffff-ffffffffffff"), u64: math.MaxUint64, u32: math.MaxUint32, inv: storage.MinTimestamp, asc: storage.MaxTimestamp, kind: storage.IndexEdge}
)

// edgeValues puts every selected component at the edges of its byte space:
// the lowest and highest values and the pair either side of a carry. The
// same logical ids appear in every scope.
var edgeValues = values{
	ids: []uuid.UUID{
		uuid.MustParse("00000000-0000-0000-0000-000000000001"),
		uuid.MustParse("7fffffff-ffff-ffff-ffff-ffffffffffff"),
		uuid.MustParse("80000000-0000-0000-0000-000000000000"),
		uuid.MustParse("ffffffff-ffff-ffff-ffff-fffffffffffe"),
		uuid.MustParse("ffffffff-ffff-ffff-ffff-ffffffffffff"),
	},
	hashes: []uint64{0, 1<<63 - 1, 1 << 63, math.MaxUint64 - 1, math.MaxUint64},
	times: []storage.Timestamp{
		storage.MinTimestamp, storage.MinTimestamp + 1, -1, 0, 1, storage.MaxTimestamp - 1, storage.MaxTimestamp,
	},
	prios:   []uint8{0, 0x7f, 0x80, 0xff},
	tails:   []tail{lowTail, midTail, highTail},
	digests: [][]byte{[]byte("digest one"), []byte("digest two")},
}

// randomValues draws a small random set of components.
func randomValues(rng *rand.Rand) *values {
	id := func() uuid.UUID {
		var u uuid.UUID
		for i := range u {
			u[i] = byte(rng.Uint32())
		}
		return u
	}
	ts := func() storage.Timestamp { return storage.Timestamp(rng.Uint64()) }
	return &values{
		ids:    []uuid.UUID{id(), id()},
		hashes: []uint64{rng.Uint64(), rng.Uint64()},
		times:  []storage.Timestamp{ts(), ts()},
		prios:  []uint8{uint8(rng.Uint32())},
		tails: []tail{{
			id: id(), u64: rng.Uint64(), u32: rng.Uint32(), inv: ts(), asc: ts(),
			kind: storage.IndexKind(rng.IntN(2)),
		}},
		digests: [][]byte{fmt.Appendf(nil, "digest %d", rng.Uint64())},
	}
}

// fields are the typed components a row's key was built from, named by
// role, so that a range's expected rows are computed from the typed model
// rather than from key bytes.
type fields struct {
	id    uuid.UUID         // the id right after the scope: logical id, anchor, node, source, query
	hash  uint64            // edge type, model id, label
	hash2 uint64            // bitmap property
	time  storage.Timestamp // the leading time of a temporal index key
	kind  uint8             // job state or bitmap kind
	prio  uint8             // job priority
}

// row is one fixture row.
type row struct {
	scope string
	key   storage.Key
	value []byte
	f     fields
}

func (r row) family() storage.ColumnFamily { return r.key.Family() }

func (r row) kv() storage.KV { return storage.KV{Key: r.key.Bytes(), Value: r.value} }

// emitFunc records one key and the components it was built from.
type emitFunc func(storage.Key, fields)

// generator writes one family's rows of one scope. Families without system
// rows emit nothing for the system scope.
type generator func(s scope, v *values, emit emitFunc)

// generators has one entry per family: every key constructor, all bitmap
// kinds, redaction and blocklist rows, system jobs and model registry rows.
var generators = []generator{
	versionRows(storage.NodeVersionKey),
	versionRows(storage.EdgeVersionKey),
	adjacencyRows(storage.AdjacencyOutKey),
	adjacencyRows(storage.AdjacencyInKey),
	temporalIndexRows(storage.ValidTimeIndexKey),
	temporalIndexRows(storage.TxTimeIndexKey),
	tenantRows(func(s storage.TenantScope, v *values, emit emitFunc) {
		for _, id := range v.ids {
			for _, h := range v.hashes {
				for _, t := range v.tails {
					emit(storage.VectorKey(s, id, storage.ModelID(h), t.inv, t.inv), fields{id: id, hash: h})
				}
			}
		}
	}),
	func(s scope, v *values, emit emitFunc) {
		for _, h := range v.hashes {
			for _, t := range v.tails {
				if s.system {
					emit(storage.SystemScope{}.VectorModelKey(storage.ModelID(h), t.inv), fields{hash: h})
				} else {
					emit(storage.SchemaKey(s.tenant, storage.LabelHash(h), t.inv), fields{hash: h})
					label := storage.EdgeTypeLabel(storage.EdgeTypeHash(h))
					emit(storage.EdgeTypeKey(s.tenant, storage.EdgeTypeHash(h), t.inv), fields{hash: uint64(label)})
				}
			}
		}
	},
	tenantRows(func(s storage.TenantScope, v *values, emit emitFunc) {
		for _, id := range v.ids {
			for _, t := range v.tails {
				// MaxTimestamp is the reserved redaction slot, emitted below.
				emit(storage.SourceKey(s, id, min(t.inv, storage.MaxTimestamp-1)), fields{id: id})
			}
			emit(storage.RedactionRecordKey(s, id), fields{id: id})
		}
		for _, d := range v.digests {
			emit(storage.BlocklistKey(s, d), fields{id: storage.BlocklistID(d)})
		}
	}),
	tenantRows(func(s storage.TenantScope, v *values, emit emitFunc) {
		for _, id := range v.ids {
			for _, t := range v.tails {
				emit(storage.SpanKey(s, id, t.u64, t.u64), fields{id: id})
			}
		}
	}),
	tenantRows(func(s storage.TenantScope, v *values, emit emitFunc) {
		for _, id := range v.ids {
			emit(storage.TraceKey(s, id), fields{id: id})
		}
	}),
	func(s scope, v *values, emit emitFunc) {
		for _, state := range jobStates {
			for _, p := range v.prios {
				for _, t := range v.tails {
					f := fields{kind: uint8(state), prio: p}
					if s.system {
						emit(storage.SystemScope{}.JobKey(state, p, t.asc, t.id), f)
					} else {
						emit(storage.JobKey(s.tenant, state, p, t.asc, t.id), f)
					}
				}
			}
		}
	},
	tenantRows(func(s storage.TenantScope, v *values, emit emitFunc) {
		for _, h := range v.hashes {
			label := storage.LabelHash(h)
			emit(storage.BitmapAllocKey(s, label), fields{hash: h, kind: uint8(storage.BitmapAlloc)})
			for _, t := range v.tails {
				emit(storage.BitmapIDMapKey(s, label, t.u32), fields{hash: h, kind: uint8(storage.BitmapIDMap)})
				emit(storage.BitmapRevMapKey(s, label, t.id), fields{hash: h, kind: uint8(storage.BitmapRevMap)})
			}
			for _, p := range v.hashes {
				prop := storage.PropertyHash(p)
				for _, t := range v.tails {
					emit(storage.BitmapPostingKey(s, label, prop, storage.BucketHash(t.u64)),
						fields{hash: h, hash2: p, kind: uint8(storage.BitmapPosting)})
				}
				emit(storage.BitmapPropCounterKey(s, label, prop), fields{hash: h, hash2: p, kind: uint8(storage.BitmapPropCounter)})
			}
		}
	}),
}

var jobStates = []storage.JobState{storage.JobQueued, storage.JobLeased, storage.JobCompleted, storage.JobFailed, storage.JobDead}

// tenantRows adapts a generator of a family that has no system rows.
func tenantRows(gen func(storage.TenantScope, *values, emitFunc)) generator {
	return func(s scope, v *values, emit emitFunc) {
		if !s.system {
			gen(s.tenant, v, emit)
		}
	}
}

func versionRows(key func(storage.TenantScope, uuid.UUID, storage.Timestamp, storage.Timestamp) storage.Key) generator {
	return tenantRows(func(s storage.TenantScope, v *values, emit emitFunc) {
		for _, id := range v.ids {
			for _, t := range v.tails {
				emit(key(s, id, t.inv, t.inv), fields{id: id})
			}
		}
	})
}

func adjacencyRows(key func(storage.TenantScope, uuid.UUID, storage.EdgeTypeHash, storage.Timestamp, storage.Timestamp, uuid.UUID) storage.Key) generator {
	return tenantRows(func(s storage.TenantScope, v *values, emit emitFunc) {
		for _, id := range v.ids {
			for _, h := range v.hashes {
				for _, t := range v.tails {
					emit(key(s, id, storage.EdgeTypeHash(h), t.inv, t.inv, t.id), fields{id: id, hash: h})
				}
			}
		}
	})
}

func temporalIndexRows(key func(storage.TenantScope, storage.Timestamp, storage.Timestamp, uuid.UUID, storage.IndexKind) storage.Key) generator {
	return tenantRows(func(s storage.TenantScope, v *values, emit emitFunc) {
		for _, tm := range v.times {
			for _, t := range v.tails {
				emit(key(s, tm, t.inv, t.id, t.kind), fields{time: tm})
			}
		}
	})
}

// fixture is a data set: rows of every family in every scope.
type fixture struct {
	scopes []scope
	rows   map[storage.ColumnFamily][]row // per family, in key order
	// cursors are pagination cursors: per family, the middle and the last
	// row of each scope.
	cursors map[storage.ColumnFamily][]row
}

// newFixture generates the rows of v for every scope. Every row's value is
// distinct, except that traces rows have empty values, so that every test
// also covers empty values.
func newFixture(t testing.TB, scopes []scope, vs ...*values) *fixture {
	t.Helper()
	fx := &fixture{scopes: scopes, rows: map[storage.ColumnFamily][]row{}, cursors: map[storage.ColumnFamily][]row{}}
	for _, s := range scopes {
		for _, v := range vs {
			for _, gen := range generators {
				gen(s, v, func(k storage.Key, f fields) {
					if !k.Valid() {
						t.Fatalf("fixture: scope %s: a generator built an invalid key", s.name)
					}
					var value []byte
					if k.Family() != storage.Traces {
						value = fmt.Appendf(nil, "%s:%x", s.name, k.Bytes())
					}
					fx.rows[k.Family()] = append(fx.rows[k.Family()], row{scope: s.name, key: k, value: value, f: f})
				})
			}
		}
	}
	for cf, rows := range fx.rows {
		slices.SortFunc(rows, func(a, b row) int { return bytes.Compare(a.key.Bytes(), b.key.Bytes()) })
		for i := 1; i < len(rows); i++ {
			if rows[i].key == rows[i-1].key {
				t.Fatalf("fixture: key generated twice: %s", rows[i].key)
			}
		}
		for _, s := range scopes {
			var own []row
			for _, r := range rows {
				if r.scope == s.name {
					own = append(own, r)
				}
			}
			if len(own) > 0 {
				fx.cursors[cf] = append(fx.cursors[cf], own[len(own)/2], own[len(own)-1])
			}
		}
	}
	return fx
}

// size returns the number of rows.
func (fx *fixture) size() int {
	n := 0
	for _, rows := range fx.rows {
		n += len(rows)
	}
	return n
}

// load writes every row into e, in batches.
func (fx *fixture) load(t testing.TB, e storage.Engine) {
	t.Helper()
	var b storage.Batch
	for _, cf := range storage.Families() {
		for _, r := range fx.rows[cf] {
			b.Put(r.key, r.value)
			if b.Len() == 500 {
				must(t, e.Write(&b))
				b.Reset()
			}
		}
	}
	must(t, e.Write(&b))
}

// model returns the rows as an engine should hold them.
func (fx *fixture) model() model {
	m := model{}
	for _, rows := range fx.rows {
		for _, r := range rows {
			m[r.key] = r.value
		}
	}
	return m
}
