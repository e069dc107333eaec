package storage

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// The tests' view of the layout table. Every key constructor of the table
// is a keyShape and every prefix scan a scanShape; the properties, fixtures,
// fuzz seeds and golden files are built from them, calling the
// constructors through reflect with arguments drawn by type, and checking
// the bytes against the reference encodings of gen_test.go, field by
// field. A new layout needs no change here.

// keyShape is one key constructor: a function form of the table, or a
// derived constructor.
type keyShape struct {
	name   string // "NodeVersionKey", "SystemScope.JobKey"
	layout Layout
	fn     reflect.Value
	setter string // the method of *Key that fn is the function form of
	system bool   // the constructor takes SystemScope: it builds system keys
	// same is set for a derived constructor: the direct constructor call,
	// with the reference hash, that it must equal.
	same reflect.Value
}

// derivedKeys are the key constructors that compute a field from their
// arguments (a hash), with the call of a direct constructor each equals.
var derivedKeys = []struct {
	fn, same any
	family   ColumnFamily
	shape    string
}{
	{EdgeTypeKey, func(s TenantScope, h EdgeTypeHash, x Timestamp) Key { return SchemaKey(s, refEdgeTypeLabel(h), x) }, Schema, ""},
	{BlocklistKey, func(s TenantScope, d []byte) Key { return RedactionRecordKey(s, refBlocklistID(d)) }, Sources, "redaction record / blocklist"},
}

// specialRanges are the range constructors that are not prefix scans of
// the table; range_prop_test.go and the golden ranges test each by hand.
var specialRanges = []string{
	"TenantAll", "ValidTimeFrom", "TxTimeBetween", "EdgeTypeHistory", "TenantAllAfterEntity",
	"TemporalIndexAfter", "ScanRange.After", "FromStoredBounds", "SystemScope.FullFamily",
}

// keyShapes are every key constructor, direct ones in table order, then
// the derived ones. The setters are read from the source (api_test.go).
var keyShapes = func() []keyShape {
	a, err := readAPIOnce()
	if err != nil {
		panic(err)
	}
	var out []keyShape
	add := func(l Layout, fn, same any) {
		v := reflect.ValueOf(fn)
		name := funcName(fn)
		sh := keyShape{name: name, layout: l, fn: v, setter: a.keys[name], system: v.Type().In(0) == systemScopeType}
		if same != nil {
			sh.same = reflect.ValueOf(same)
		}
		out = append(out, sh)
	}
	for _, l := range layouts {
		for _, k := range l.keys {
			add(l, k, nil)
		}
	}
	for _, d := range derivedKeys {
		l, ok := layoutOf(d.family, d.shape)
		if !ok {
			panic(fmt.Sprintf("derived key %s: no layout %s %q", funcName(d.fn), d.family, d.shape))
		}
		add(l, d.fn, d.same)
	}
	return out
}()

var (
	systemScopeType = reflect.TypeFor[SystemScope]()
	tenantScopeType = reflect.TypeFor[TenantScope]()
	uuidType        = reflect.TypeFor[uuid.UUID]()
	timestampType   = reflect.TypeFor[Timestamp]()
	indexKindType   = reflect.TypeFor[IndexKind]()
	jobStateType    = reflect.TypeFor[JobState]()
	bytesType       = reflect.TypeFor[[]byte]()
)

// layoutOf returns the layout of family cf with the given shape.
func layoutOf(cf ColumnFamily, shape string) (Layout, bool) {
	for _, l := range layouts {
		if l.Family == cf && l.Shape == shape {
			return l, true
		}
	}
	return Layout{}, false
}

// derived reports whether sh computes a field from its arguments.
func (sh keyShape) derived() bool { return sh.same.IsValid() }

// args are the arguments of one constructor call, the scope first.
type args []reflect.Value

// scopeArg is the scope argument of a shape's call in scope s.
func (sh keyShape) scopeArg(s TenantScope) reflect.Value {
	if sh.system {
		return reflect.ValueOf(SystemScope{})
	}
	return reflect.ValueOf(s)
}

// key calls the function form.
func (sh keyShape) key(a args) Key { return sh.fn.Call(a)[0].Interface().(Key) }

// set calls the setter on k.
func (sh keyShape) set(k *Key, a args) { reflect.ValueOf(k).MethodByName(sh.setter).Call(a) }

// draw draws the arguments of a call in scope s.
func (sh keyShape) draw(t *rapid.T, s TenantScope) args {
	a := args{sh.scopeArg(s)}
	for i := 1; i < sh.fn.Type().NumIn(); i++ {
		a = append(a, drawArg(t, sh.fn.Type().In(i), fmt.Sprintf("arg%d", i)))
	}
	return a
}

// drawKey draws a key of the shape in scope s, set into a Key that held
// another key before (or none), so that every property also checks that a
// setter leaves nothing behind of the key it overwrites.
func (sh keyShape) drawKey(t *rapid.T, s TenantScope) (Key, args) {
	a := sh.draw(t, s)
	k := genUsedKey.Draw(t, "used")
	sh.set(&k, a)
	return k, a
}

// genUsedKey draws what a reused Key may hold: nothing, a longest tenant
// key, a system key, a key a setter refused, or a key from the zero scope.
var genUsedKey = rapid.Custom(func(t *rapid.T) (k Key) {
	switch rapid.IntRange(0, 4).Draw(t, "usedKind") {
	case 1:
		k = AdjacencyOutKey(genScope.Draw(t, "usedScope"), uuid.Max, math.MaxUint64, MinTimestamp, MinTimestamp, uuid.Max)
	case 2:
		k = SystemScope{}.JobKey(JobDead, math.MaxUint8, MaxTimestamp, uuid.Max)
	case 3:
		k = SourceKey(genScope.Draw(t, "usedScope"), uuid.Max, MaxTimestamp) // the reserved slot: refused
	case 4:
		k = AdjacencyInKey(TenantScope{}, uuid.Max, math.MaxUint64, MinTimestamp, MinTimestamp, uuid.Max)
	}
	return k
})

// drawArg draws an argument of type typ, favouring the edges of its domain.
func drawArg(t *rapid.T, typ reflect.Type, label string) reflect.Value {
	switch typ {
	case uuidType:
		return reflect.ValueOf(genID.Draw(t, label))
	case timestampType:
		return reflect.ValueOf(genTime.Draw(t, label))
	case indexKindType:
		return reflect.ValueOf(genIndexKind.Draw(t, label))
	case jobStateType:
		return reflect.ValueOf(genState.Draw(t, label))
	case bytesType:
		return reflect.ValueOf(rapid.SliceOfN(rapid.Byte(), 0, 100).Draw(t, label))
	}
	switch typ.Kind() {
	case reflect.Uint64:
		return reflect.ValueOf(genHash.Draw(t, label)).Convert(typ)
	case reflect.Uint32:
		return reflect.ValueOf(rapid.Uint32().Draw(t, label)).Convert(typ)
	case reflect.Uint8:
		return reflect.ValueOf(rapid.Uint8().Draw(t, label)).Convert(typ)
	}
	panic(fmt.Sprintf("no generator for arguments of type %s", typ))
}

// drawNear returns v itself, a neighbour of v, or any value of its type,
// so that ties and off-by-one pairs are frequent.
func drawNear(t *rapid.T, v reflect.Value, label string) reflect.Value {
	switch v.Type() {
	case uuidType:
		return reflect.ValueOf(drawNearID(t, v.Interface().(uuid.UUID), label))
	case timestampType:
		return reflect.ValueOf(drawNearTime(t, Timestamp(v.Int()), label))
	}
	if v.Kind() == reflect.Uint64 {
		return reflect.ValueOf(drawNearHash(t, v.Uint(), label)).Convert(v.Type())
	}
	if rapid.Bool().Draw(t, label+"Same") {
		return v
	}
	return drawArg(t, v.Type(), label)
}

// argIndex returns, for field i of l, the index of the constructor
// argument that holds it (the scope is argument 0), or -1 for a fixed
// field.
func argIndex(l Layout, i int) int {
	if l.Fields[i].Fixed != nil {
		return -1
	}
	n := 1
	for _, f := range l.Fields[:i] {
		if f.Fixed == nil {
			n++
		}
	}
	return n
}

// refScope is the reference encoding of a scope argument.
func refScope(v reflect.Value) []byte {
	if v.Type() == systemScopeType {
		return make([]byte, ScopeLen)
	}
	return refPrefix(v.Interface().(TenantScope))
}

// refField is the reference encoding of argument v in field f.
func refField(f Field, v reflect.Value) []byte {
	switch f.Kind {
	case FieldID:
		id := v.Interface().(uuid.UUID)
		return id[:]
	case FieldHash, FieldUint64:
		return be64(v.Uint())
	case FieldInvertedTime:
		return refInv(Timestamp(v.Int()))
	case FieldOrderedTime:
		return refAsc(Timestamp(v.Int()))
	case FieldUint32:
		return binary.BigEndian.AppendUint32(nil, uint32(v.Uint()))
	case FieldUint8, FieldIndexKind, FieldJobState, FieldBitmapKind:
		return []byte{byte(v.Uint())}
	}
	panic(fmt.Sprintf("no reference encoding for field kind %d", f.Kind))
}

// refKey is the reference encoding of the first n fields of l holding
// arguments a (scope first): the bytes a key, or a prefix, must have.
func refKey(l Layout, n int, a args) []byte {
	b := refScope(a[0])
	for i, f := range l.Fields[:n] {
		if f.Fixed != nil {
			b = append(b, f.Fixed...)
		} else {
			b = append(b, refField(f, a[argIndex(l, i)])...)
		}
	}
	return b
}

// want returns the bytes the call must build, derived constructors
// included, and whether it builds a key at all: a constructor refuses
// exactly the arguments whose bytes another layout of its family claims
// with its fixed fields (the reserved slot).
func (sh keyShape) want(a args) ([]byte, bool) {
	if sh.derived() {
		k := sh.same.Call(a)[0].Interface().(Key)
		return k.Bytes(), k.Valid()
	}
	b := refKey(sh.layout, len(sh.layout.Fields), a)
	for _, other := range layouts {
		if other.Family == sh.layout.Family && other.Shape != sh.layout.Shape && fixedMatch(other, b) {
			return b, false
		}
	}
	return b, true
}

// fixedMatch reports whether key bytes b have l's length and l's fixed
// fields.
func fixedMatch(l Layout, b []byte) bool {
	if len(b) != l.Len() {
		return false
	}
	off := ScopeLen
	hasFixed := false
	for _, f := range l.Fields {
		if f.Fixed != nil {
			hasFixed = true
			if !bytes.Equal(b[off:off+f.Width()], f.Fixed) {
				return false
			}
		}
		off += f.Width()
	}
	return hasFixed
}

// fieldValue reads field f out of its bytes b as a value of type typ: the
// inverse of refField.
func fieldValue(f Field, b []byte, typ reflect.Type) reflect.Value {
	var v uint64
	switch f.Kind {
	case FieldID:
		return reflect.ValueOf(uuid.UUID(b))
	case FieldHash, FieldUint64:
		v = binary.BigEndian.Uint64(b)
	case FieldInvertedTime:
		v = math.MaxUint64 - binary.BigEndian.Uint64(b) - 1<<63
	case FieldOrderedTime:
		v = binary.BigEndian.Uint64(b) - 1<<63
	case FieldUint32:
		v = uint64(binary.BigEndian.Uint32(b))
	default:
		v = uint64(b[0])
	}
	if typ == timestampType {
		return reflect.ValueOf(Timestamp(v))
	}
	return reflect.ValueOf(v).Convert(typ)
}

// argsOf reads the arguments of a direct shape's call out of key bytes b:
// ok is false if b does not have the layout's length and fixed fields, or
// its scope is not of the shape's kind (a tenant's, or the system's).
func (sh keyShape) argsOf(b []byte) (args, bool) {
	l := sh.layout
	if len(b) != l.Len() || sh.derived() {
		return nil, false
	}
	var a args
	if sh.system {
		if !isSystemPrefix(b[:ScopeLen]) {
			return nil, false
		}
		a = args{reflect.ValueOf(SystemScope{})}
	} else {
		s, err := NewTenantScope(uuid.UUID(b[:16]), uuid.UUID(b[16:ScopeLen]))
		if err != nil {
			return nil, false
		}
		a = args{reflect.ValueOf(s)}
	}
	off := ScopeLen
	for i, f := range l.Fields {
		fb := b[off : off+f.Width()]
		off += f.Width()
		if f.Fixed != nil {
			if !bytes.Equal(fb, f.Fixed) {
				return nil, false
			}
			continue
		}
		a = append(a, fieldValue(f, fb, sh.fn.Type().In(argIndex(l, i))))
	}
	return a, true
}

// rebuild builds key bytes b of family cf again with the table's
// constructors, reading their arguments out of b: the key a decoder's
// parts stand for. ok is false when no constructor builds b.
func rebuild(cf ColumnFamily, b []byte) (Key, bool) {
	for _, sh := range keyShapes {
		if sh.layout.Family != cf {
			continue
		}
		if a, ok := sh.argsOf(b); ok {
			if k := sh.key(a); k.Valid() && bytes.Equal(k.Bytes(), b) {
				return k, true
			}
		}
	}
	return Key{}, false
}

// compareArgs compares the fields of two calls of a direct shape in the
// order their bytes must sort: scope first, then each field by its kind,
// inverted times reversed.
func (sh keyShape) compareArgs(a, b args) int {
	if c := bytes.Compare(refScope(a[0]), refScope(b[0])); c != 0 {
		return c
	}
	for i, f := range sh.layout.Fields {
		j := argIndex(sh.layout, i)
		if j < 0 {
			continue
		}
		var c int
		switch f.Kind {
		case FieldID:
			x, y := a[j].Interface().(uuid.UUID), b[j].Interface().(uuid.UUID)
			c = bytes.Compare(x[:], y[:])
		case FieldInvertedTime:
			c = -cmp.Compare(a[j].Int(), b[j].Int())
		case FieldOrderedTime:
			c = cmp.Compare(a[j].Int(), b[j].Int())
		default:
			c = cmp.Compare(a[j].Uint(), b[j].Uint())
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// scanShape is one prefix scan of the table.
type scanShape struct {
	name   string
	layout Layout
	prefix int
	fn     reflect.Value
	system bool
}

var scanShapes = func() []scanShape {
	var out []scanShape
	for _, l := range layouts {
		for _, s := range l.scans {
			v := reflect.ValueOf(s.fn)
			out = append(out, scanShape{name: s.Name(), layout: l, prefix: s.Prefix, fn: v, system: v.Type().In(0) == systemScopeType})
		}
	}
	return out
}()

// draw draws the arguments of a call in scope s.
func (sc scanShape) draw(t *rapid.T, s TenantScope) args {
	a := args{reflect.ValueOf(s)}
	if sc.system {
		a[0] = reflect.ValueOf(SystemScope{})
	}
	for i := 1; i < sc.fn.Type().NumIn(); i++ {
		a = append(a, drawArg(t, sc.fn.Type().In(i), fmt.Sprintf("arg%d", i)))
	}
	return a
}

// scanRange calls the scan.
func (sc scanShape) scanRange(a args) ScanRange { return sc.fn.Call(a)[0].Interface().(ScanRange) }

// lower is the reference lower bound of a call: the scope and the prefix
// fields; every key that starts with it is in the range.
func (sc scanShape) lower(a args) []byte { return refKey(sc.layout, sc.prefix, a) }

// probe draws a key of the scan's family and scope kind, in scope s (valid
// unless s is the zero TenantScope),
// whose prefix fields are the call's arguments or their neighbours, and
// says whether the scan selects it. The prefix fields of the shapes it
// draws from are of the scan's kinds, so their arguments have the same
// places.
func (sc scanShape) probe(t *rapid.T, s TenantScope, a args) (Key, bool) {
	var shapes []keyShape
	for _, sh := range keyShapes {
		if sh.layout.Family == sc.layout.Family && sh.system == sc.system && !sh.derived() && samePrefixKinds(sh.layout, sc.layout, sc.prefix) {
			shapes = append(shapes, sh)
		}
	}
	sh := rapid.SampledFrom(shapes).Draw(t, "probeShape")
	for {
		ka := sh.draw(t, s)
		inside := true
		for i, f := range sc.layout.Fields[:sc.prefix] {
			if f.Fixed != nil {
				inside = inside && bytes.Equal(f.Fixed, sh.layout.Fields[i].Fixed)
				continue
			}
			j := argIndex(sc.layout, i)
			ka[j] = drawNear(t, a[j], fmt.Sprintf("probe%d", i))
			inside = inside && ka[j].Equal(a[j])
		}
		if k := sh.key(ka); k.Valid() || !sh.system && s.IsZero() {
			return k, inside
		}
	}
}

// samePrefixKinds reports whether the first n fields of l and m are of the
// same kinds, fixed in the same places.
func samePrefixKinds(l, m Layout, n int) bool {
	if len(l.Fields) < n {
		return false
	}
	for i := range n {
		if l.Fields[i].Kind != m.Fields[i].Kind || (l.Fields[i].Fixed == nil) != (m.Fields[i].Fixed == nil) {
			return false
		}
	}
	return true
}

// signatureProblems checks that key constructor k of l takes the scope
// its layout holds and then one argument per field that is not fixed, of
// the field's kind.
func signatureProblems(l Layout, k any) []string {
	typ := reflect.TypeOf(k)
	var out []string
	scope := typ.In(0)
	switch {
	case l.Scope == TenantRows && scope != tenantScopeType,
		l.Scope == SystemRows && scope != systemScopeType,
		scope != tenantScopeType && scope != systemScopeType:
		out = append(out, fmt.Sprintf("%s: takes a %s first, but layout %s holds rows of scope %d", funcName(k), scope, l.title(), l.Scope))
	}
	return append(out, argProblems(funcName(k), l, len(l.Fields), typ)...)
}

// scanProblems checks that scan s of l takes the scope and then one
// argument per field of its prefix that is not fixed, of the field's kind.
func scanProblems(l Layout, s Scan) []string {
	if s.Prefix > len(l.Fields) {
		return []string{fmt.Sprintf("%s: prefix of %d fields, layout %s has %d", s.Name(), s.Prefix, l.title(), len(l.Fields))}
	}
	return argProblems(s.Name(), l, s.Prefix, reflect.TypeOf(s.fn))
}

// argProblems checks that function type typ takes the scope and then one
// argument per field of l.Fields[:n] that is not fixed, of the field's
// kind.
func argProblems(name string, l Layout, n int, typ reflect.Type) []string {
	var want []reflect.Type
	for _, f := range l.Fields[:n] {
		if f.Fixed == nil {
			want = append(want, nil)
		}
	}
	if typ.NumIn() != 1+len(want) {
		return []string{fmt.Sprintf("%s: %d arguments after the scope, layout %s has %d fields that are not fixed in the first %d", name, typ.NumIn()-1, l.title(), len(want), n)}
	}
	var out []string
	for i, f := range l.Fields[:n] {
		j := argIndex(l, i)
		if j >= 0 && !fieldTakes(f.Kind, typ.In(j)) {
			out = append(out, fmt.Sprintf("%s: argument %d is a %s, but field %s of layout %s is of kind %d", name, j, typ.In(j), f.Name, l.title(), f.Kind))
		}
	}
	return out
}

// fieldTakes reports whether a field of kind k holds arguments of type typ.
func fieldTakes(k FieldKind, typ reflect.Type) bool {
	switch k {
	case FieldID:
		return typ == uuidType
	case FieldHash:
		return typ.Kind() == reflect.Uint64 && typ.PkgPath() != ""
	case FieldUint64:
		return typ == reflect.TypeFor[uint64]()
	case FieldInvertedTime, FieldOrderedTime:
		return typ == timestampType
	case FieldUint32:
		return typ == reflect.TypeFor[uint32]()
	case FieldUint8:
		return typ == reflect.TypeFor[uint8]()
	case FieldIndexKind:
		return typ == indexKindType
	case FieldJobState:
		return typ == jobStateType
	}
	return false
}
