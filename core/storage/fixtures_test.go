package storage

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Fixed inputs shared by the golden files, the typed error tables, the fuzz
// seeds and the benchmarks. Every field has its own byte pattern so that a
// misplaced field is visible in a hex dump.
var (
	fxS  = mustScope(uuid.MustParse("01020304-0506-0708-090a-0b0c0d0e0f10"), uuid.MustParse("11121314-1516-1718-191a-1b1c1d1e1f20"))
	fxFF = mustScope(uuid.Max, uuid.Max) // the last scope: it has no successor

	fxA = uuid.MustParse("a1a2a3a4-a5a6-a7a8-a9aa-abacadaeafb0")
	fxB = uuid.MustParse("b1b2b3b4-b5b6-b7b8-b9ba-bbbcbdbebfc0")

	fxEdgeType = EdgeTypeHash(0xe1e2e3e4e5e6e7e8)
	fxLabel    = LabelHash(0xc1c2c3c4c5c6c7c8)
	fxModel    = ModelID(0x9192939495969798)
	fxProperty = PropertyHash(0xd1d2d3d4d5d6d7d8)
	fxBucket   = BucketHash(0xf1f2f3f4f5f6f7f8)
	fxRow      = uint32(0x0a0b0c0d)
	fxCounter  = CounterVectors

	fxValid   = TimestampOf(time.Date(2024, 5, 6, 7, 8, 9, 101112000, time.UTC))
	fxTx      = TimestampOf(time.Date(2025, 1, 2, 3, 4, 5, 60708000, time.UTC))
	fxCreated = TimestampOf(time.Date(2025, 6, 7, 8, 9, 10, 111213000, time.UTC))
	fxBefore  = TimestampOf(time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)) // valid time before 1970

	fxSpanStart, fxSpanEnd = uint64(256), uint64(4096)
	fxState, fxPriority    = JobLeased, uint8(7)
	fxIndexKind            = IndexEdge
	fxDigest               = []byte("keyed digest of erased content")
)

// fxLegend names the fixed inputs in the golden files.
var fxLegend = []struct{ name, value string }{
	{"S", "tenant 01020304-0506-0708-090a-0b0c0d0e0f10, organization 11121314-1516-1718-191a-1b1c1d1e1f20"},
	{"FF", "tenant ffffffff-ffff-ffff-ffff-ffffffffffff, organization ffffffff-ffff-ffff-ffff-ffffffffffff (the last scope)"},
	{"A", fxA.String()},
	{"B", fxB.String()},
	{"Max", uuid.Max.String()},
	{"E", "edge type hash 0xe1e2e3e4e5e6e7e8"},
	{"L", "label hash 0xc1c2c3c4c5c6c7c8"},
	{"M", "model id 0x9192939495969798"},
	{"P", "property hash 0xd1d2d3d4d5d6d7d8"},
	{"K", "bucket hash 0xf1f2f3f4f5f6f7f8"},
	{"R", "row id 0x0a0b0c0d"},
	{"V", "valid start " + fxValid.String()},
	{"X", "tx start " + fxTx.String()},
	{"C", "created at " + fxCreated.String()},
	{"Old", "time " + fxBefore.String() + " (before 1970)"},
	{"D", "keyed digest " + `"` + string(fxDigest) + `"`},
}

func mustScope(tenant, organization uuid.UUID) TenantScope {
	s, err := NewTenantScope(tenant, organization)
	if err != nil {
		panic(err)
	}
	return s
}

// keyFixture is one key constructor call on fixed inputs.
type keyFixture struct {
	call  string // the call, in the names of fxLegend
	shape keyShape
	args  args
}

func (fx keyFixture) build() Key { return fx.shape.key(fx.args) }

// The fixed inputs a fixture takes, per kind of field.
const (
	fxCanonical = iota // the legend's inputs, one byte pattern per field
	fxLow              // the lowest bytes of every field
	fxHigh             // the highest bytes of every field
	fxLast             // the highest bytes of every field, in the last scope
)

// keyFixtures returns, for every key constructor of the table, calls on the
// canonical and the lowest inputs, and on the highest in the last scope
// (derived constructors: the canonical ones only), then a few calls that pin the encodings: times
// before 1970, hashes of real names, the slot next to the reserved one.
// The first fixture of each layout is canonical.
func keyFixtures() []keyFixture {
	var out []keyFixture
	for _, sh := range keyShapes {
		for _, variant := range []int{fxCanonical, fxLow, fxLast} {
			if variant != fxCanonical && sh.derived() {
				break
			}
			out = append(out, sh.fixture(variant))
		}
	}
	sys := SystemScope{}
	for _, x := range []struct {
		call string
		fn   any
		args []any
	}{
		{"NodeVersionKey(S, A, Old, 0)", NodeVersionKey, []any{fxS, fxA, fxBefore, Timestamp(0)}},
		{"NodeVersionKey(S, A, -1, 1)", NodeVersionKey, []any{fxS, fxA, Timestamp(-1), Timestamp(1)}},
		{"JobKey(S, queued, 0, Old, A)", JobKey, []any{fxS, JobQueued, uint8(0), fxBefore, fxA}},
		{"SourceChunkKey(S, A, RedactionChunkIndex-1)", SourceChunkKey, []any{fxS, fxA, RedactionChunkIndex - 1}},
		{"FactSpanKey(S, A, B, 0, math.MaxUint64)", FactSpanKey, []any{fxS, fxA, fxB, uint64(0), uint64(math.MaxUint64)}},
		{`AdjacencyOutKey(S, A, HashEdgeType("KNOWS"), V, X, B)`, AdjacencyOutKey, []any{fxS, fxA, HashEdgeType("KNOWS"), fxValid, fxTx, fxB}},
		{`SystemScope.VectorModelKey(ModelIDOf("text-embedding-3-small"), X)`, SystemScope.VectorModelKey, []any{sys, ModelIDOf("text-embedding-3-small"), fxTx}},
		{`BitmapPostingKey(S, HashLabel("Person"), HashProperty("age"), HashBucket("42"))`, BitmapPostingKey,
			[]any{fxS, HashLabel("Person"), HashProperty("age"), HashBucket([]byte("42"))}},
	} {
		sh := shapeOf(x.fn)
		a := make(args, len(x.args))
		for i, v := range x.args {
			a[i] = reflect.ValueOf(v)
		}
		out = append(out, keyFixture{call: x.call, shape: sh, args: a})
	}
	return out
}

// shapeOf returns the key shape of constructor fn.
func shapeOf(fn any) keyShape {
	for _, sh := range keyShapes {
		if sh.name == funcName(fn) {
			return sh
		}
	}
	panic(fmt.Sprintf("%s is not a key constructor of the table", funcName(fn)))
}

// fixture returns the call of sh on one variant of the fixed inputs.
func (sh keyShape) fixture(variant int) keyFixture {
	a, names := sh.fixtureArgs(variant)
	return keyFixture{call: callName(sh.name, names), shape: sh, args: a}
}

// fixtureArgs returns the arguments of a call of sh on one variant of the
// fixed inputs, and their names; a SystemScope is not named.
func (sh keyShape) fixtureArgs(variant int) (args, []string) {
	scope, scopeName := fxS, "S"
	if variant == fxLast {
		scope, scopeName = fxFF, "FF"
	}
	if sh.system {
		scopeName = ""
	}
	a, names := args{sh.scopeArg(scope)}, []string{scopeName}
	ids := 0
	for i := 1; i < sh.fn.Type().NumIn(); i++ {
		v, name := fixtureArg(sh, i, variant, ids)
		if v.Type() == uuidType {
			ids++
		}
		a = append(a, v)
		names = append(names, name)
	}
	return a, names
}

// callName renders a call from the names of its arguments.
func callName(fn string, names []string) string {
	if names[0] == "" {
		names = names[1:]
	}
	return fn + "(" + strings.Join(names, ", ") + ")"
}

// fixtureArg returns argument i of a call of sh on the given variant of the
// fixed inputs, and its name; ids is the number of ids before it.
func fixtureArg(sh keyShape, i, variant, ids int) (reflect.Value, string) {
	typ := sh.fn.Type().In(i)
	var field Field
	if !sh.derived() {
		for j := range sh.layout.Fields {
			if argIndex(sh.layout, j) == i {
				field = sh.layout.Fields[j]
			}
		}
	}
	low, high := variant == fxLow, variant == fxHigh || variant == fxLast
	switch {
	case typ == uuidType && low:
		return reflect.ValueOf(uuid.Nil), "Nil"
	case typ == uuidType && high:
		return reflect.ValueOf(uuid.Max), "Max"
	case typ == uuidType:
		return reflect.ValueOf([]uuid.UUID{fxA, fxB}[ids]), []string{"A", "B"}[ids]
	case typ == timestampType:
		// Inverted times are lowest at MaxTimestamp, ordered ones at
		// MinTimestamp.
		inverted := field.Kind != FieldOrderedTime
		switch {
		case low == inverted:
			if low || high {
				return reflect.ValueOf(MaxTimestamp), "MaxTimestamp"
			}
		case low || high:
			return reflect.ValueOf(MinTimestamp), "MinTimestamp"
		}
		switch {
		case field.Kind == FieldOrderedTime:
			return reflect.ValueOf(fxCreated), "C"
		case strings.HasPrefix(field.Name, "valid"):
			return reflect.ValueOf(fxValid), "V"
		}
		return reflect.ValueOf(fxTx), "X"
	case typ == bytesType:
		return reflect.ValueOf(fxDigest), "D"
	case typ == indexKindType || typ == jobStateType:
		return enumArg(typ, variant)
	case low:
		return reflect.Zero(typ), "0"
	case high:
		return reflect.ValueOf(uint64(math.MaxUint64)).Convert(typ), "max"
	}
	for _, c := range []struct {
		v    any
		name string
	}{{fxEdgeType, "E"}, {fxLabel, "L"}, {fxModel, "M"}, {fxProperty, "P"}, {fxBucket, "K"}, {fxRow, "R"}, {fxCounter, "N"}, {fxPriority, "7"}} {
		if reflect.TypeOf(c.v) == typ {
			return reflect.ValueOf(c.v), c.name
		}
	}
	if typ == reflect.TypeFor[uint64]() { // span offsets: start, then end
		if field.Name == "span_start" {
			return reflect.ValueOf(fxSpanStart), "256"
		}
		return reflect.ValueOf(fxSpanEnd), "4096"
	}
	panic(fmt.Sprintf("%s: no fixed input for an argument of type %s", sh.name, typ))
}

// enumArg returns the canonical, lowest or highest valid value of an enum
// type, named by its String method.
func enumArg(typ reflect.Type, variant int) (reflect.Value, string) {
	var valid []reflect.Value
	for b := range 256 {
		v := reflect.ValueOf(uint8(b)).Convert(typ)
		if v.MethodByName("Valid").Call(nil)[0].Bool() {
			valid = append(valid, v)
		}
	}
	v := reflect.ValueOf(fxIndexKind)
	if typ == jobStateType {
		v = reflect.ValueOf(fxState)
	}
	switch variant {
	case fxLow:
		v = valid[0]
	case fxHigh, fxLast:
		v = valid[len(valid)-1]
	}
	return v, fmt.Sprint(v.Interface())
}

// rangeFixture is one range constructor call on fixed inputs.
type rangeFixture struct {
	call  string
	build func() (ScanRange, error)
}

// rangeFixtures returns, for every prefix scan of the table, calls on the
// canonical and the highest inputs, the latter in the canonical scope
// (where the upper bound carries into the scope's) and in the last scope
// (where it runs to the end of the family), then the special range
// constructors by hand.
func rangeFixtures() []rangeFixture {
	var out []rangeFixture
	for _, sc := range scanShapes {
		variants := []int{fxCanonical, fxHigh, fxLast}
		if sc.system {
			variants = []int{fxCanonical}
		}
		for _, variant := range variants {
			a, call := sc.fixture(variant)
			out = append(out, rangeFixture{call, func() (ScanRange, error) { return sc.scanRange(a), nil }})
		}
	}
	return append(out, specialRangeFixtures()...)
}

// specialRangeFixtures are the calls of the special range constructors.
func specialRangeFixtures() []rangeFixture {
	sys := SystemScope{}
	plain := func(r ScanRange) (ScanRange, error) { return r, nil }
	// Inputs built once, so that a fixture's build makes only the range.
	allNodes, historyA := TenantAll(fxS, NodeVersions), NodeHistory(fxS, fxA)
	cursor, cursorB := NodeVersionKey(fxS, fxA, fxValid, fxTx), NodeVersionKey(fxS, fxB, fxValid, fxTx)
	indexCursor := TxTimeIndexKey(fxS, fxTx, fxValid, fxA, fxIndexKind)
	storedLower, storedUpper := cat(refPrefix(fxS), fxA[:]), refSucc(refPrefix(fxS))
	return []rangeFixture{
		{"TenantAll(S, node_versions)", func() (ScanRange, error) { return plain(TenantAll(fxS, NodeVersions)) }},
		{"TenantAll(FF, jobs)", func() (ScanRange, error) { return plain(TenantAll(fxFF, Jobs)) }},
		{"ValidTimeFrom(S, V)", func() (ScanRange, error) { return plain(ValidTimeFrom(fxS, fxValid)) }},
		{"ValidTimeFrom(S, MinTimestamp)", func() (ScanRange, error) { return plain(ValidTimeFrom(fxS, MinTimestamp)) }},
		{"TxTimeBetween(S, V, X)", func() (ScanRange, error) { return TxTimeBetween(fxS, fxValid, fxTx) }},
		{"TxTimeBetween(S, MinTimestamp, MaxTimestamp)", func() (ScanRange, error) { return TxTimeBetween(fxS, MinTimestamp, MaxTimestamp) }},
		{"TxTimeBetween(S, X, V)", func() (ScanRange, error) { return TxTimeBetween(fxS, fxTx, fxValid) }},
		{"EdgeTypeHistory(S, E)", func() (ScanRange, error) { return plain(EdgeTypeHistory(fxS, fxEdgeType)) }},
		{"TenantAllAfterEntity(S, node_versions, A)", func() (ScanRange, error) { return TenantAllAfterEntity(fxS, NodeVersions, fxA) }},
		{"TenantAllAfterEntity(S, traces, Max)", func() (ScanRange, error) { return TenantAllAfterEntity(fxS, Traces, uuid.Max) }},
		{"TenantAllAfterEntity(S, schema, A)", func() (ScanRange, error) { return TenantAllAfterEntity(fxS, Schema, fxA) }},
		{"TenantAll(S, node_versions).After(NodeVersionKey(S, A, V, X))", func() (ScanRange, error) { return allNodes.After(cursor) }},
		{"NodeHistory(S, A).After(NodeVersionKey(S, B, V, X))", func() (ScanRange, error) { return historyA.After(cursorB) }},
		{"TemporalIndexAfter(S, TxTimeIndexKey(S, X, V, A, edge))", func() (ScanRange, error) { return TemporalIndexAfter(fxS, indexCursor) }},
		{"TemporalIndexAfter(S, NodeVersionKey(S, A, V, X))", func() (ScanRange, error) { return TemporalIndexAfter(fxS, cursor) }},
		{"FromStoredBounds(sources, S A, S+1)", func() (ScanRange, error) { return FromStoredBounds(Sources, storedLower, storedUpper) }},
		{"FromStoredBounds(sources, S A, nil)", func() (ScanRange, error) { return FromStoredBounds(Sources, storedLower, nil) }},
		{"SystemScope.FullFamily(jobs)", func() (ScanRange, error) { return plain(sys.FullFamily(Jobs)) }},
	}
}

// fixture returns the arguments of a call of the scan on one variant of
// the fixed inputs, those of the first constructor of its layout, and the
// call's name.
func (sc scanShape) fixture(variant int) (args, string) {
	for _, sh := range keyShapes {
		if sh.layout.Family == sc.layout.Family && sh.layout.Shape == sc.layout.Shape && sh.system == sc.system {
			a, names := sh.fixtureArgs(variant)
			n := sc.fn.Type().NumIn()
			return a[:n], callName(sc.name, names[:n])
		}
	}
	panic(fmt.Sprintf("%s: no key constructor of its layout", sc.name))
}
