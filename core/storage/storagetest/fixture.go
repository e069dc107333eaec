package storagetest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
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

// values are the component values a fixture combines. A key's leading
// fields, those some range selects on, take every value of their type; the
// fields after them take the values of one tail at a time.
type values struct {
	ids     []uuid.UUID
	hashes  []uint64 // every 64-bit field: hashes, ids, offsets
	times   []storage.Timestamp
	prios   []uint8
	tails   []tail
	digests [][]byte
}

// tail is one choice of the trailing key components, which no range
// selects on.
type tail struct {
	id    uuid.UUID
	u64   uint64
	u32   uint32
	u8    uint8
	inv   storage.Timestamp // a time the key stores inverted
	asc   storage.Timestamp // a time the key stores ascending
	kind  storage.IndexKind
	state storage.JobState
}

// Tails whose bytes are lowest, middling and highest: every selected prefix
// gets a row at its very start and at its very end, so that a bound that is
// off by one byte includes or drops a row.
var (
	lowTail = tail{id: uuid.MustParse("00000000-0000-0000-0000-000000000001"), inv: storage.MaxTimestamp, asc: storage.MinTimestamp,
		kind: storage.IndexNode, state: storage.JobQueued}
	midTail = tail{id: uuid.MustParse("80000000-0000-0000-0000-000000000000"), u64: 1 << 63, u32: 1 << 31, u8: 1 << 7,
		kind: storage.IndexNode, state: storage.JobCompleted}
	highTail = tail{id: uuid.MustParse("ffffffff-ffff-ffff-ffff-ffffffffffff"), u64: math.MaxUint64, u32: math.MaxUint32, u8: math.MaxUint8,
		inv: storage.MinTimestamp, asc: storage.MaxTimestamp, kind: storage.IndexEdge, state: storage.JobDead}
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
			id: id(), u64: rng.Uint64(), u32: rng.Uint32(), u8: uint8(rng.Uint32()), inv: ts(), asc: ts(),
			kind: storage.IndexKind(rng.IntN(2)), state: jobStates[rng.IntN(len(jobStates))],
		}},
		digests: [][]byte{fmt.Appendf(nil, "digest %d", rng.Uint64())},
	}
}

var jobStates = []storage.JobState{storage.JobQueued, storage.JobLeased, storage.JobCompleted, storage.JobFailed, storage.JobDead}

var (
	uuidType      = reflect.TypeFor[uuid.UUID]()
	timestampType = reflect.TypeFor[storage.Timestamp]()
	indexKindType = reflect.TypeFor[storage.IndexKind]()
	jobStateType  = reflect.TypeFor[storage.JobState]()
	systemType    = reflect.TypeFor[storage.SystemScope]()
)

// choices returns the values an argument of type typ takes: every value
// of its type in v, or only the tail's.
func (v *values) choices(typ reflect.Type, f storage.Field, tl *tail) []reflect.Value {
	var out []reflect.Value
	add := func(x any) { out = append(out, reflect.ValueOf(x).Convert(typ)) }
	switch {
	case typ == uuidType && tl != nil:
		add(tl.id)
	case typ == uuidType:
		for _, id := range v.ids {
			add(id)
		}
	case typ == timestampType && tl != nil && f.Kind == storage.FieldOrderedTime:
		add(tl.asc)
	case typ == timestampType && tl != nil:
		add(tl.inv)
	case typ == timestampType:
		for _, t := range v.times {
			add(t)
		}
	case typ == indexKindType && tl != nil:
		add(tl.kind)
	case typ == indexKindType:
		add(storage.IndexNode)
		add(storage.IndexEdge)
	case typ == jobStateType && tl != nil:
		add(tl.state)
	case typ == jobStateType:
		for _, s := range jobStates {
			add(s)
		}
	case typ.Kind() == reflect.Uint64 && tl != nil:
		add(tl.u64)
	case typ.Kind() == reflect.Uint64:
		for _, h := range v.hashes {
			add(h)
		}
	case typ.Kind() == reflect.Uint32:
		add(tl.u32)
	case typ.Kind() == reflect.Uint8 && tl != nil:
		add(tl.u8)
	case typ.Kind() == reflect.Uint8:
		for _, p := range v.prios {
			add(p)
		}
	default:
		panic(fmt.Sprintf("storagetest: no fixture values for arguments of type %s", typ))
	}
	return out
}

// calls returns every argument list (after the scope) of function type
// typ, whose arguments are the fields of l that are not fixed, in order:
// the first selected fields take every value of v, the others one tail's.
func (v *values) calls(typ reflect.Type, l storage.Layout, selected int) [][]reflect.Value {
	tails := v.tails[:1] // unless a field takes a tail's value
	for _, f := range l.Fields[min(selected, len(l.Fields)):] {
		if f.Fixed == nil {
			tails = v.tails
		}
	}
	var out [][]reflect.Value
	for _, tl := range tails {
		calls := [][]reflect.Value{nil}
		arg := 1
		for i, f := range l.Fields {
			if f.Fixed != nil {
				continue
			}
			var pick *tail
			if i >= selected {
				pick = &tl
			}
			var next [][]reflect.Value
			for _, c := range calls {
				for _, x := range v.choices(typ.In(arg), f, pick) {
					next = append(next, append(slices.Clone(c), x))
				}
			}
			calls = next
			arg++
		}
		out = append(out, calls...)
	}
	return out
}

// fields are the components of a row's key, one per field of its layout:
// the argument it was built from, or the fixed bytes. A range's expected
// rows are computed from them, not from key bytes.
type fields []any

// row is one fixture row.
type row struct {
	scope  string
	key    storage.Key
	value  []byte
	f      fields
	layout string // the constructor's: layouts of one family may share bytes
}

func (r row) family() storage.ColumnFamily { return r.key.Family() }

func (r row) kv() storage.KV { return storage.KV{Key: r.key.Bytes(), Value: r.value} }

// emitFunc records one key, the layout it was built for and the
// components it was built from.
type emitFunc func(storage.Key, string, fields)

// generate writes the rows of every layout of the table in scope s: each
// constructor of the scope's kind, called with every argument list of v.
// The fields some range selects on, at least the first, take every value.
func generate(s scope, v *values, emit emitFunc) {
	for _, l := range storage.Layouts() {
		selected := 1
		for _, sc := range l.Scans() {
			selected = max(selected, sc.Prefix)
		}
		for _, c := range l.Constructors() {
			fn := reflect.ValueOf(c)
			if (fn.Type().In(0) == systemType) != s.system {
				continue
			}
			scopeArg := reflect.ValueOf(s.tenant)
			if s.system {
				scopeArg = reflect.ValueOf(storage.SystemScope{})
			}
			for _, call := range v.calls(fn.Type(), l, selected) {
				k := fn.Call(append([]reflect.Value{scopeArg}, call...))[0].Interface().(storage.Key)
				if !k.Valid() && (s.system || !s.tenant.IsZero()) {
					continue // arguments the constructor refuses: the reserved slot
				}
				emit(k, l.Family.String()+"/"+l.Shape, rowFields(l, call))
			}
		}
	}
	if s.system {
		return
	}
	// The derived constructors, which hash a field.
	for _, h := range v.hashes {
		for _, tl := range v.tails {
			et := storage.EdgeTypeHash(h)
			emit(storage.EdgeTypeKey(s.tenant, et, tl.inv), "edge type", fields{storage.EdgeTypeLabel(et), tl.inv})
		}
	}
	for _, d := range v.digests {
		emit(storage.BlocklistKey(s.tenant, d), "blocklist", fields{storage.BlocklistID(d), make([]byte, 8)})
	}
}

// rowFields returns the fields of a key of l built from args.
func rowFields(l storage.Layout, args []reflect.Value) fields {
	f := make(fields, len(l.Fields))
	for i, fd := range l.Fields {
		if fd.Fixed != nil {
			f[i] = fd.Fixed
			continue
		}
		f[i], args = args[0].Interface(), args[1:]
	}
	return f
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
			generate(s, v, func(k storage.Key, layout string, f fields) {
				if !k.Valid() {
					t.Fatalf("fixture: scope %s: a generator built an invalid key", s.name)
				}
				var value []byte
				if k.Family() != storage.Traces {
					value = fmt.Appendf(nil, "%s:%x", s.name, k.Bytes())
				}
				fx.rows[k.Family()] = append(fx.rows[k.Family()], row{scope: s.name, key: k, value: value, f: f, layout: layout})
			})
		}
	}
	for cf, rows := range fx.rows {
		slices.SortFunc(rows, func(a, b row) int { return bytes.Compare(a.key.Bytes(), b.key.Bytes()) })
		rows = slices.CompactFunc(rows, func(a, b row) bool {
			if a.key == b.key && a.layout == b.layout {
				t.Fatalf("fixture: key generated twice: %s", b.key)
			}
			return a.key == b.key // two layouts that share bytes: one row
		})
		fx.rows[cf] = rows
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
