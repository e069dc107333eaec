package storage

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Properties of scan ranges: confinement to one scope, exact bounds
// (docs/design.md, Invariants 3) and membership.

// rangeDraw is one constructor call on drawn arguments, with what the call
// must return, computed independently of the codec.
type rangeDraw struct {
	r        ScanRange
	err      error
	fallible bool  // the constructor returns an error
	wantErr  error // the sentinel the call must fail with; nil for success
	family   ColumnFamily
	lower    []byte
	upper    []byte // nil: to the end of the family
	// probe draws a key built from the call's arguments under scope s, with
	// some components varied, and says whether the range's meaning puts it
	// inside when s is the range's own scope. Under another scope the key
	// must be outside whatever inside says.
	probe func(t *rapid.T, s TenantScope) (k Key, inside bool)
}

type rangeCase struct {
	name string
	raw  bool // built from stored bytes rather than from a TenantScope
	draw func(t *rapid.T, s TenantScope) rangeDraw
}

var genFamily = rapid.SampledFrom(Families())

var genEntityFamily = rapid.SampledFrom(slices.DeleteFunc(Families(), func(cf ColumnFamily) bool { return !cf.KeyedByEntity() }))

// prefixDraw is a call whose range is every key that starts with lower.
func prefixDraw(r ScanRange, cf ColumnFamily, lower []byte, probe func(t *rapid.T, s TenantScope) (Key, bool)) rangeDraw {
	return rangeDraw{r: r, family: cf, lower: lower, upper: refSucc(lower), probe: probe}
}

// afterRange resumes base after a cursor drawn from base's family.
func afterRange(cf ColumnFamily, base ScanRange, cursor Key, r ScanRange, err error) rangeDraw {
	return rangeDraw{
		r: r, err: err, fallible: true, family: cf, lower: cat(cursor.Bytes(), []byte{0}), upper: base.upper,
		probe: func(t *rapid.T, s TenantScope) (Key, bool) {
			k := drawKeyOf(t, s, cf)
			return k, base.Contains(k) && bytes.Compare(k.Bytes(), cursor.Bytes()) > 0
		},
	}
}

// rangeCases are the tenant prefix scans of the layout table, then the
// special range constructors by hand.
var rangeCases = append(prefixCases(), specialCases...)

// prefixCases is a case per tenant prefix scan of the table: the range is
// every key that starts with the reference encoding of the scope and the
// prefix fields; a key of the family with the call's prefix fields (or
// their neighbours) is inside exactly when they are equal.
func prefixCases() []rangeCase {
	var out []rangeCase
	for _, sc := range scanShapes {
		if sc.system {
			continue
		}
		out = append(out, rangeCase{name: sc.name, draw: func(t *rapid.T, s TenantScope) rangeDraw {
			a := sc.draw(t, s)
			return prefixDraw(sc.scanRange(a), sc.layout.Family, sc.lower(a), func(t *rapid.T, s TenantScope) (Key, bool) {
				return sc.probe(t, s, a)
			})
		}})
	}
	return out
}

var specialCases = []rangeCase{
	{name: "TenantAll", draw: func(t *rapid.T, s TenantScope) rangeDraw {
		cf := genFamily.Draw(t, "family")
		return prefixDraw(TenantAll(s, cf), cf, refPrefix(s), func(t *rapid.T, s TenantScope) (Key, bool) { return drawKeyOf(t, s, cf), true })
	}},
	{name: "ValidTimeFrom", draw: func(t *rapid.T, s TenantScope) rangeDraw {
		at := genTime.Draw(t, "at")
		return rangeDraw{
			r: ValidTimeFrom(s, at), family: ValidTimeIndex, lower: cat(refPrefix(s), refInv(at)), upper: refSucc(refPrefix(s)),
			probe: func(t *rapid.T, s TenantScope) (Key, bool) {
				v := drawNearTime(t, at, "valid")
				return ValidTimeIndexKey(s, v, genTime.Draw(t, "tx"), genID.Draw(t, "id"), genIndexKind.Draw(t, "kind")), v <= at
			},
		}
	}},
	{name: "TxTimeBetween", draw: func(t *rapid.T, s TenantScope) rangeDraw {
		from := genTime.Draw(t, "from")
		to := drawNearTime(t, from, "to")
		r, err := TxTimeBetween(s, from, to)
		d := rangeDraw{
			r: r, err: err, fallible: true, family: TxTimeIndex,
			lower: cat(refPrefix(s), refInv(to)), upper: refSucc(cat(refPrefix(s), refInv(from))),
			probe: func(t *rapid.T, s TenantScope) (Key, bool) {
				x := drawNearTime(t, rapid.SampledFrom([]Timestamp{from, to}).Draw(t, "end"), "tx")
				return TxTimeIndexKey(s, x, genTime.Draw(t, "valid"), genID.Draw(t, "id"), genIndexKind.Draw(t, "kind")), from <= x && x <= to
			},
		}
		if from > to {
			d.wantErr = ErrEmptyRange
		}
		return d
	}},
	{name: "EdgeTypeHistory", draw: func(t *rapid.T, s TenantScope) rangeDraw {
		h := EdgeTypeHash(genHash.Draw(t, "edgeType"))
		lower := cat(refPrefix(s), be64(uint64(refEdgeTypeLabel(h))))
		return prefixDraw(EdgeTypeHistory(s, h), Schema, lower, func(t *rapid.T, s TenantScope) (Key, bool) {
			h2 := EdgeTypeHash(drawNearHash(t, uint64(h), "edgeType2"))
			return EdgeTypeKey(s, h2, genTime.Draw(t, "tx")), h2 == h
		})
	}},
	{name: "TenantAllAfterEntity", draw: func(t *rapid.T, s TenantScope) rangeDraw {
		cf, id := genEntityFamily.Draw(t, "family"), genID.Draw(t, "id")
		r, err := TenantAllAfterEntity(s, cf, id)
		d := rangeDraw{
			r: r, err: err, fallible: true, family: cf, lower: refSucc(cat(refPrefix(s), id[:])), upper: refSucc(refPrefix(s)),
			probe: func(t *rapid.T, s TenantScope) (Key, bool) {
				id2 := drawNearID(t, id, "id2")
				return drawEntityKey(t, s, cf, id2), bytes.Compare(id2[:], id[:]) > 0
			},
		}
		if !bytes.HasPrefix(d.lower, refPrefix(s)) { // id is all 0xff: nothing follows it
			d.wantErr = ErrEmptyRange
		}
		return d
	}},
	{name: "After", draw: func(t *rapid.T, s TenantScope) rangeDraw {
		cf := genFamily.Draw(t, "family")
		base, cursor := TenantAll(s, cf), drawKeyOf(t, s, cf)
		r, err := base.After(cursor)
		return afterRange(cf, base, cursor, r, err)
	}},
	{name: "After/NodeHistory", draw: func(t *rapid.T, s TenantScope) rangeDraw {
		id := genID.Draw(t, "id")
		base, cursor := NodeHistory(s, id), drawEntityKey(t, s, NodeVersions, id)
		r, err := base.After(cursor)
		return afterRange(NodeVersions, base, cursor, r, err)
	}},
	{name: "TemporalIndexAfter", draw: func(t *rapid.T, s TenantScope) rangeDraw {
		cf := rapid.SampledFrom([]ColumnFamily{ValidTimeIndex, TxTimeIndex}).Draw(t, "family")
		cursor := drawKeyOf(t, s, cf)
		r, err := TemporalIndexAfter(s, cursor)
		return afterRange(cf, TenantAll(s, cf), cursor, r, err)
	}},
	{name: "FromStoredBounds", raw: true, draw: func(t *rapid.T, s TenantScope) rangeDraw {
		cf, p := genFamily.Draw(t, "family"), refPrefix(s)
		lower := cat(p, drawSuffix(t, "lowerSuffix"))
		var upper []byte
		switch rapid.IntRange(0, 3).Draw(t, "upperShape") {
		case 0:
			upper = refSucc(p)
		case 1:
			upper = cat(p, drawSuffix(t, "upperSuffix"))
		case 2:
			upper = cat(refSucc(p), drawSuffix(t, "beyondSuffix")) // beyond the scope unless it is the last one
		}
		r, err := FromStoredBounds(cf, lower, upper)
		d := rangeDraw{
			r: r, err: err, fallible: true, family: cf, lower: lower, upper: upper,
			probe: func(t *rapid.T, s TenantScope) (Key, bool) {
				k := drawKeyOf(t, s, cf)
				return k, inBounds(k.Bytes(), lower, upper)
			},
		}
		limit := refSucc(p)
		switch {
		case limit != nil && (upper == nil || bytes.Compare(upper, limit) > 0):
			d.wantErr = ErrNotConfined
		case upper != nil && bytes.Compare(lower, upper) >= 0:
			d.wantErr = ErrEmptyRange
		}
		return d
	}},
}

// drawSuffix draws up to 24 bytes that are often 0xff, so that successors
// carry.
func drawSuffix(t *rapid.T, label string) []byte {
	n := rapid.IntRange(0, 24).Draw(t, label+"Len")
	out := make([]byte, n)
	for i := range out {
		if rapid.Bool().Draw(t, label+"FF") {
			out[i] = 0xff
		} else {
			out[i] = rapid.Byte().Draw(t, label)
		}
	}
	return out
}

// Invariant 4 for every constructor: the bounds are the independently
// computed ones, the lower bound starts with the scope's prefix (never the
// all-zero one), the upper bound lies above it and at or below the scope's
// own upper bound, and a nil upper bound happens only for the last scope.
// Keys built from the call's arguments are inside exactly when the range's
// meaning says so; keys of any other scope, the system scope included, never
// are.
func TestPropRangeConfined(t *testing.T) {
	for _, c := range rangeCases {
		t.Run(c.name, func(t *testing.T) {
			checkProp(t, func(t *rapid.T) {
				s := genScope.Draw(t, "scope")
				checkRange(t, s, c.draw(t, s))
			})
		})
	}
}

func checkRange(t *rapid.T, s TenantScope, d rangeDraw) {
	r := d.r
	if d.wantErr != nil {
		if !errors.Is(d.err, d.wantErr) || r.Valid() {
			t.Fatalf("got %v, %v; want %v", r, d.err, d.wantErr)
		}
		return
	}
	if d.err != nil || !r.Valid() || r.Family() != d.family || !r.WithinOneScope() {
		t.Fatalf("got %v, %v; want a valid %s range within one scope", r, d.err, d.family)
	}
	if !bytes.Equal(r.lower, d.lower) || !bytes.Equal(r.upper, d.upper) || (r.upper == nil) != (d.upper == nil) {
		t.Fatalf("bounds [%x, %x), want [%x, %x)", r.lower, r.upper, d.lower, d.upper)
	}
	p := refPrefix(s)
	if !bytes.HasPrefix(r.lower, p) || bytes.Equal(r.lower[:ScopeLen], make([]byte, ScopeLen)) {
		t.Fatalf("lower bound %x outside the scope %x", r.lower, p)
	}
	switch limit := refSucc(p); {
	case r.upper == nil && limit != nil:
		t.Fatalf("unbounded range in scope %x, which has the upper bound %x", p, limit)
	case r.upper != nil && limit != nil && bytes.Compare(r.upper, limit) > 0:
		t.Fatalf("upper bound %x crosses the scope's upper bound %x", r.upper, limit)
	case r.upper != nil && bytes.Compare(r.lower, r.upper) >= 0:
		t.Fatalf("empty range [%x, %x)", r.lower, r.upper)
	}
	if cap(r.lower) != len(r.lower) {
		t.Fatalf("lower bound has spare capacity %d: appending to it would overwrite the upper bound", cap(r.lower)-len(r.lower))
	}

	k, inside := d.probe(t, s)
	if r.Contains(k) != inside || inBounds(k.Bytes(), r.lower, r.upper) != inside {
		t.Fatalf("%v contains %v: %v, want %v", r, k, r.Contains(k), inside)
	}
	o := drawOtherScope(t, s)
	ko, _ := d.probe(t, o)
	kany, _ := genShape.Draw(t, "anyShape").drawKey(t, o)
	for _, k := range []Key{ko, kany} {
		if r.Contains(k) || inBounds(k.Bytes(), r.lower, r.upper) {
			t.Fatalf("%v contains %v of scope %s", r, k, o)
		}
	}
}

// Every tenant range constructor returns an invalid range (and an error, if
// it returns one) for the zero TenantScope.
func TestPropZeroScopeRanges(t *testing.T) {
	var cases []rangeCase
	for _, c := range rangeCases {
		if !c.raw {
			cases = append(cases, c)
		}
	}
	gen := rapid.SampledFrom(cases)
	checkProp(t, func(t *rapid.T) {
		c := gen.Draw(t, "constructor")
		d := c.draw(t, TenantScope{})
		if d.r.Valid() || d.fallible && d.err == nil {
			t.Fatalf("%s from the zero scope = %v, %v; want an invalid range", c.name, d.r, d.err)
		}
	})
}

// The prefix encoder fails closed on its own: a prefix started in the zero
// scope yields no bytes and only invalid ranges, whatever components follow,
// so a range constructor that forgot its scope check could not reach the
// all-zero prefix of the system scope.
func TestPropPrefixFailsClosed(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		var k, k2 Key
		cf := rapid.SampledFrom(Families()).Draw(t, "family")
		e := startPrefix(&k, cf, TenantScope{}).id(genID.Draw(t, "id")).u64(genHash.Draw(t, "hash")).inv(genTime.Draw(t, "t"))
		valid := startPrefix(&k2, cf, genScope.Draw(t, "scope"))
		if e.bytes() != nil || e.prefixRange().Valid() || e.fromRange().Valid() {
			t.Fatalf("a zero-scope prefix gives bytes %x or a valid range", e.bytes())
		}
		for _, pair := range [][2]encoder{{e, valid}, {valid, e}, {e, e}} {
			if r, err := between(pair[0], pair[1]); r.Valid() || !errors.Is(err, ErrInvalidRange) {
				t.Fatalf("between with a zero-scope end = %v, %v; want ErrInvalidRange", r, err)
			}
		}
	})
}

// Invariant 5: successor is the shortest string above every extension of
// its input; a suffix of 0xff after a scope carries into the scope and gives
// exactly the scope's own upper bound, never the next tenant's keys; the
// last scope has no successor. It appends to dst and leaves dst's bytes.
func TestPropSuccessor(t *testing.T) {
	checkProp(t, func(t *rapid.T) {
		p := refPrefix(genScope.Draw(t, "scope"))
		b := cat(p, drawSuffix(t, "suffix"))
		dst := rapid.SliceOfN(rapid.Byte(), 0, 4).Draw(t, "dst")
		out, ok := successor(bytes.Clone(dst), b)
		want := refSucc(b)
		if ok != (want != nil) || !bytes.HasPrefix(out, dst) || !bytes.Equal(out[len(dst):], want) {
			t.Fatalf("successor(%x, %x) = %x, %v; want %x", dst, b, out, ok, cat(dst, want))
		}
		if !ok {
			if !allFF(p) {
				t.Fatalf("no successor for %x, whose scope has one", b)
			}
			return
		}
		succ := out[len(dst):]
		if bytes.HasPrefix(succ, b) || bytes.Compare(succ, cat(b, bytes.Repeat([]byte{0xff}, 8))) <= 0 {
			t.Fatalf("successor %x of %x is not above its extensions", succ, b)
		}
		if limit := refSucc(p); limit != nil && bytes.Compare(succ, limit) > 0 {
			t.Fatalf("successor %x of %x passes the scope's upper bound %x", succ, b, limit)
		}
		if allFF(b[ScopeLen:]) && !bytes.Equal(succ, refSucc(p)) {
			t.Fatalf("successor %x of an all-0xff suffix is not the scope's upper bound %x", succ, refSucc(p))
		}
	})
}

// The system ranges hold exactly the system rows they name: the full-family
// sweep every row of its family, whatever the scope; every system prefix
// scan of the table the system rows whose prefix fields are its arguments,
// and never a tenant's row.
func TestPropSystemRanges(t *testing.T) {
	var scans []scanShape
	for _, sc := range scanShapes {
		if sc.system {
			scans = append(scans, sc)
		}
	}
	checkProp(t, func(t *rapid.T) {
		k, _ := genShape.Draw(t, "shape").drawKey(t, genScope.Draw(t, "scope"))
		if !k.Valid() {
			return // a refused argument
		}
		cf := genFamily.Draw(t, "family")
		if r := (SystemScope{}).FullFamily(cf); r.Contains(k) != (k.Family() == cf) || r.WithinOneScope() {
			t.Fatalf("SystemScope.FullFamily(%s) = %v contains %v: %v", cf, r, k, r.Contains(k))
		}
		sc := rapid.SampledFrom(scans).Draw(t, "scan")
		a := sc.draw(t, TenantScope{})
		r := sc.scanRange(a)
		want := k.Family() == sc.layout.Family && bytes.HasPrefix(k.Bytes(), sc.lower(a))
		if r.Contains(k) != want || inBounds(k.Bytes(), r.lower, r.upper) != want && k.Family() == r.Family() {
			t.Fatalf("%s = %v contains %v: %v, want %v", sc.name, r, k, r.Contains(k), want)
		}
		if !bytes.Equal(r.lower, sc.lower(a)) || !bytes.Equal(r.upper, refSucc(sc.lower(a))) || !r.WithinOneScope() {
			t.Fatalf("%s = %v, want [%x, %x)", sc.name, r, sc.lower(a), refSucc(sc.lower(a)))
		}
		if probe, inside := sc.probe(t, TenantScope{}, a); r.Contains(probe) != inside {
			t.Fatalf("%s = %v contains %v: %v, want %v", sc.name, r, probe, r.Contains(probe), inside)
		}
	})
}
