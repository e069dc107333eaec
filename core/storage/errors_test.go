package storage

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// decoders lists every typed decoder with its family. decode discards the
// parts so that callers measure and check the decoder without boxing them.
var decoders = []struct {
	name   string
	family ColumnFamily
	decode func([]byte) error
}{
	{"DecodeNodeVersion", NodeVersions, func(b []byte) error { _, err := DecodeNodeVersion(b); return err }},
	{"DecodeEdgeVersion", EdgeVersions, func(b []byte) error { _, err := DecodeEdgeVersion(b); return err }},
	{"DecodeAdjacencyOut", AdjacencyOut, func(b []byte) error { _, err := DecodeAdjacencyOut(b); return err }},
	{"DecodeAdjacencyIn", AdjacencyIn, func(b []byte) error { _, err := DecodeAdjacencyIn(b); return err }},
	{"DecodeValidTimeIndex", ValidTimeIndex, func(b []byte) error { _, err := DecodeValidTimeIndex(b); return err }},
	{"DecodeTxTimeIndex", TxTimeIndex, func(b []byte) error { _, err := DecodeTxTimeIndex(b); return err }},
	{"DecodeVector", Vectors, func(b []byte) error { _, err := DecodeVector(b); return err }},
	{"DecodeSchema", Schema, func(b []byte) error { _, err := DecodeSchema(b); return err }},
	{"DecodeSource", Sources, func(b []byte) error { _, err := DecodeSource(b); return err }},
	{"DecodeSpan", Spans, func(b []byte) error { _, err := DecodeSpan(b); return err }},
	{"DecodeTrace", Traces, func(b []byte) error { _, err := DecodeTrace(b); return err }},
	{"DecodeJob", Jobs, func(b []byte) error { _, err := DecodeJob(b); return err }},
	{"DecodeBitmap", BitmapIndex, func(b []byte) error { _, err := DecodeBitmap(b); return err }},
}

// canonicalKey returns the bytes of the first key fixture of family cf.
func canonicalKey(cf ColumnFamily) []byte {
	for _, f := range keyFixtures() {
		if k := f.build(); k.Family() == cf {
			return k.Bytes()
		}
	}
	panic(fmt.Sprintf("no key fixture of %s", cf))
}

// canonicalOf returns the bytes of the canonical key fixture of layout l.
func canonicalOf(l Layout) []byte {
	for _, f := range keyFixtures() {
		if f.shape.layout.title() == l.title() {
			return f.build().Bytes()
		}
	}
	panic(fmt.Sprintf("no key fixture of layout %s", l.title()))
}

// badInput is a variant of a family's key that its decoder must reject
// with want.
type badInput struct {
	name string
	b    []byte
	want error
}

// with returns a copy of b with the bytes at off replaced by v.
func with(b []byte, off int, v ...byte) []byte {
	out := bytes.Clone(b)
	copy(out[off:], v)
	return out
}

// validKind reports whether byte v is in the enumeration of a
// discriminator field of kind k.
func validKind(k FieldKind, v byte) bool {
	switch k {
	case FieldIndexKind:
		return IndexKind(v).Valid()
	case FieldJobState:
		return JobState(v).Valid()
	case FieldBitmapKind:
		return BitmapKind(v).Valid()
	}
	return true
}

// badInputs returns, for every layout of family cf, variants of its
// canonical key that the decoder must refuse: of every wrong length, cut
// at every field, with a half-nil scope, and with every discriminator
// outside its enumeration or naming a layout of another length.
func badInputs(cf ColumnFamily) []badInput {
	var in []badInput
	for _, l := range layouts {
		if l.Family != cf {
			continue
		}
		k := canonicalOf(l)
		in = append(in,
			badInput{l.title() + ": nil", nil, ErrWrongLength},
			badInput{l.title() + ": empty", []byte{}, ErrWrongLength},
			badInput{l.title() + ": one byte long", append(bytes.Clone(k), 0), ErrWrongLength},
			badInput{l.title() + ": longest key plus one", make([]byte, MaxKeyLen+1), ErrWrongLength},
			badInput{l.title() + ": nil tenant", with(k, 0, cat(make([]byte, 16), fxB[:])...), ErrHalfNilScope},
			badInput{l.title() + ": nil organization", with(k, 0, cat(fxA[:], make([]byte, 16))...), ErrHalfNilScope})
		off := ScopeLen
		for _, f := range l.Fields {
			in = append(in, badInput{fmt.Sprintf("%s: cut before %s", l.title(), f.Name), k[:off], ErrWrongLength})
			off += f.Width()
		}
		in = append(in, badInput{l.title() + ": one byte short", k[:len(k)-1], ErrWrongLength})
		off = ScopeLen
		for _, f := range l.Fields {
			for v := range 256 {
				b := byte(v)
				switch {
				case !validKind(f.Kind, b) && (b == 0 || b == 0xff || validKind(f.Kind, b-1)):
					in = append(in, badInput{fmt.Sprintf("%s: %s 0x%02x", l.title(), f.Name, b), with(k, off, b), ErrUnknownKind})
				case f.Fixed != nil && f.Kind == FieldBitmapKind && validKind(f.Kind, b) && b != f.Fixed[0]:
					if other := layoutWithFixed(cf, b); other.Len() != l.Len() {
						in = append(in, badInput{fmt.Sprintf("%s: %s of %s", l.title(), f.Name, other.title()), with(k, off, b), ErrWrongLength})
					}
				}
			}
			off += f.Width()
		}
	}
	return in
}

// layoutWithFixed returns the layout of family cf whose discriminator is v.
func layoutWithFixed(cf ColumnFamily, v byte) Layout {
	for _, l := range layouts {
		for _, f := range l.Fields {
			if l.Family == cf && len(f.Fixed) == 1 && f.Fixed[0] == v {
				return l
			}
		}
	}
	panic(fmt.Sprintf("no layout of %s with discriminator 0x%02x", cf, v))
}

// Every decoder, and Decode, DescribeKey and ParseKey for its family, fails
// with the right sentinel on each bad input.
func TestDecodeErrors(t *testing.T) {
	for _, d := range decoders {
		for _, in := range badInputs(d.family) {
			t.Run(d.name+"/"+in.name, func(t *testing.T) {
				if err := d.decode(in.b); !errors.Is(err, in.want) {
					t.Errorf("%s(%x) = %v, want %v", d.name, in.b, err, in.want)
				}
				if _, err := Decode(d.family, in.b); !errors.Is(err, in.want) {
					t.Errorf("Decode(%s, %x) = %v, want %v", d.family, in.b, err, in.want)
				}
				if _, err := DescribeKey(d.family, in.b); !errors.Is(err, in.want) {
					t.Errorf("DescribeKey(%s, %x) = %v, want %v", d.family, in.b, err, in.want)
				}
				if _, err := ParseKey(fxS, d.family, in.b); !errors.Is(err, in.want) {
					t.Errorf("ParseKey(S, %s, %x) = %v, want %v", d.family, in.b, err, in.want)
				}
			})
		}
	}
}

// Family numbers and names outside the 13 families fail with
// ErrUnknownFamily wherever a family is an input.
func TestUnknownFamily(t *testing.T) {
	key := canonicalKey(NodeVersions)
	for _, cf := range []ColumnFamily{0, LastFamily + 1, 255} {
		t.Run(fmt.Sprint(uint8(cf)), func(t *testing.T) {
			if _, err := Decode(cf, key); !errors.Is(err, ErrUnknownFamily) {
				t.Errorf("Decode: %v", err)
			}
			if _, err := DescribeKey(cf, key); !errors.Is(err, ErrUnknownFamily) {
				t.Errorf("DescribeKey: %v", err)
			}
			if _, err := ParseKey(fxS, cf, key); !errors.Is(err, ErrUnknownFamily) {
				t.Errorf("ParseKey: %v", err)
			}
			if _, err := FromStoredBounds(cf, key, nil); !errors.Is(err, ErrUnknownFamily) {
				t.Errorf("FromStoredBounds: %v", err)
			}
			if _, err := TenantAllAfterEntity(fxS, cf, fxA); !errors.Is(err, ErrUnknownFamily) {
				t.Errorf("TenantAllAfterEntity: %v", err)
			}
			if cf.Valid() || cf.String() != fmt.Sprintf("ColumnFamily(%d)", uint8(cf)) {
				t.Errorf("Valid() = %v, String() = %q", cf.Valid(), cf.String())
			}
		})
	}
	for _, name := range []string{"", "nodes", "Node_Versions", "node_versions "} {
		if _, err := ParseColumnFamily(name); !errors.Is(err, ErrUnknownFamily) {
			t.Errorf("ParseColumnFamily(%q) = %v, want ErrUnknownFamily", name, err)
		}
	}
	for _, cf := range []ColumnFamily{Schema, ValidTimeIndex, TxTimeIndex, Jobs, BitmapIndex} {
		if _, err := TenantAllAfterEntity(fxS, cf, fxA); !errors.Is(err, ErrNotKeyedByEntity) {
			t.Errorf("TenantAllAfterEntity(S, %s, A) = %v: the family is not keyed by entity", cf, err)
		}
	}
}

// The families in open order, with names that parse back. A store names
// its families on disk, so the names it may hold never change; a family
// added later comes after them.
func TestFamilies(t *testing.T) {
	stored := []string{
		"node_versions", "edge_versions", "adjacency_out", "adjacency_in", "valid_time_index", "tx_time_index",
		"vectors", "schema", "sources", "spans", "traces", "jobs", "bitmap_index",
	}
	fams := Families()
	if len(fams) < len(stored) {
		t.Fatalf("%d families, want at least the %d a store may hold", len(fams), len(stored))
	}
	for i, cf := range fams {
		if i < len(stored) && cf.String() != stored[i] || !cf.Valid() {
			t.Errorf("family %d = %s, want %s", i, cf, stored[min(i, len(stored)-1)])
		}
		if got, err := ParseColumnFamily(cf.String()); got != cf || err != nil {
			t.Errorf("ParseColumnFamily(%q) = %v, %v", cf.String(), got, err)
		}
	}
}

// NewTenantScope rejects a nil component with ErrNilScope; the zero scope,
// the zero Key and the zero ScanRange are invalid and say so.
func TestZeroValues(t *testing.T) {
	for _, ids := range [][2]uuid.UUID{{uuid.Nil, fxA}, {fxA, uuid.Nil}, {uuid.Nil, uuid.Nil}} {
		if s, err := NewTenantScope(ids[0], ids[1]); !errors.Is(err, ErrNilScope) || !s.IsZero() {
			t.Errorf("NewTenantScope(%s, %s) = %v, %v; want ErrNilScope", ids[0], ids[1], s, err)
		}
	}
	var s TenantScope
	if s.String() != "invalid(zero TenantScope)" || (KeyScope{}).Is(s) {
		t.Errorf("zero scope: %q, the system KeyScope matches it: %v", s.String(), (KeyScope{}).Is(s))
	}
	if _, err := ParseKey(s, NodeVersions, canonicalKey(NodeVersions)); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("ParseKey with the zero scope: %v, want ErrInvalidKey", err)
	}

	var k Key
	if k.Valid() || k.Len() != 0 || k.Bytes() != nil || k.String() != "invalid key" || k.Family() != 0 {
		t.Errorf("zero Key: valid=%v len=%d bytes=%x %q", k.Valid(), k.Len(), k.Bytes(), k.String())
	}
	var b Batch
	b.Put(NodeVersionKey(fxS, fxA, fxValid, fxTx), nil)
	b.Delete(k)
	if !errors.Is(b.Err(), ErrInvalidKey) || b.Len() != 1 {
		t.Errorf("batch with a zero Key: err %v, len %d; want ErrInvalidKey and 1", b.Err(), b.Len())
	}

	var r ScanRange
	if r.Valid() || r.String() != "invalid range" || r.Contains(NodeVersionKey(fxS, fxA, fxValid, fxTx)) {
		t.Errorf("zero ScanRange: valid=%v %q", r.Valid(), r.String())
	}
	if _, err := r.After(NodeVersionKey(fxS, fxA, fxValid, fxTx)); !errors.Is(err, ErrInvalidRange) {
		t.Errorf("zero ScanRange.After: %v, want ErrInvalidRange", err)
	}
	for name, f := range map[string]func() (ScanRange, error){
		"TxTimeBetween":        func() (ScanRange, error) { return TxTimeBetween(s, fxValid, fxTx) },
		"TenantAllAfterEntity": func() (ScanRange, error) { return TenantAllAfterEntity(s, NodeVersions, fxA) },
		"TemporalIndexAfter": func() (ScanRange, error) {
			return TemporalIndexAfter(s, TxTimeIndexKey(fxS, fxTx, fxValid, fxA, fxIndexKind))
		},
	} {
		if r, err := f(); !errors.Is(err, ErrInvalidRange) || r.Valid() {
			t.Errorf("%s from the zero scope = %v, %v; want ErrInvalidRange", name, r, err)
		}
	}
}

// Inputs outside an enumeration, the reserved redaction slot as a tx time,
// and cursors from elsewhere give invalid keys, invalid ranges or errors.
func TestInvalidInputs(t *testing.T) {
	sys := SystemScope{}
	keys := map[string]Key{
		"JobKey(S, 0, ...)":                         JobKey(fxS, 0, 1, fxCreated, fxA),
		"JobKey(S, 6, ...)":                         JobKey(fxS, JobDead+1, 1, fxCreated, fxA),
		"SystemScope.JobKey(0, ...)":                sys.JobKey(0, 1, fxCreated, fxA),
		"SourceChunkKey(S, A, RedactionChunkIndex)": SourceChunkKey(fxS, fxA, RedactionChunkIndex),
		"SpanKey(S, A, math.MaxUint64, 0)":          SpanKey(fxS, fxA, math.MaxUint64, 0),
	}
	for name, k := range keys {
		if k.Valid() {
			t.Errorf("%s = %x, want an invalid Key", name, k.Bytes())
		}
	}
	ranges := map[string]ScanRange{
		"JobsInState(S, 0)":            JobsInState(fxS, 0),
		"JobsInStatePriority(S, 6, 1)": JobsInStatePriority(fxS, JobDead+1, 1),
		"SystemScope.JobsInState(0)":   sys.JobsInState(0),
		"TenantAll(S, 0)":              TenantAll(fxS, 0),
		"TenantAll(S, 14)":             TenantAll(fxS, LastFamily+1),
		"SystemScope.FullFamily(0)":    sys.FullFamily(0),
	}
	for name, r := range ranges {
		if r.Valid() {
			t.Errorf("%s = %v, want the invalid range", name, r)
		}
	}

	other := mustScope(fxB, fxA)
	cursors := map[string]struct {
		r      ScanRange
		cursor Key
	}{
		"cursor of another scope":   {TenantAll(fxS, NodeVersions), NodeVersionKey(other, fxA, fxValid, fxTx)},
		"cursor of another family":  {TenantAll(fxS, NodeVersions), EdgeVersionKey(fxS, fxA, fxValid, fxTx)},
		"cursor of another entity":  {NodeHistory(fxS, fxA), NodeVersionKey(fxS, fxB, fxValid, fxTx)},
		"cursor of the system":      {TenantAll(fxS, Jobs), sys.JobKey(JobQueued, 0, fxCreated, fxA)},
		"zero cursor":               {TenantAll(fxS, NodeVersions), Key{}},
		"cursor before the range":   {ValidTimeFrom(fxS, fxValid), ValidTimeIndexKey(fxS, fxValid+1, fxTx, fxA, IndexNode)},
		"cursor of the next tenant": {TenantAll(fxS, Traces), TraceKey(neighbour(fxS, true), fxA)},
	}
	for name, c := range cursors {
		if r, err := c.r.After(c.cursor); !errors.Is(err, ErrOutOfRange) || r.Valid() {
			t.Errorf("%s: After = %v, %v; want ErrOutOfRange", name, r, err)
		}
	}
	if _, err := TemporalIndexAfter(fxS, TxTimeIndexKey(other, fxTx, fxValid, fxA, IndexNode)); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("TemporalIndexAfter with another scope's cursor: %v, want ErrOutOfRange", err)
	}
	if _, err := TemporalIndexAfter(fxS, NodeVersionKey(fxS, fxA, fxValid, fxTx)); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("TemporalIndexAfter with a node_versions cursor: %v, want ErrOutOfRange", err)
	}
}

// After never returns an empty range: FromStoredBounds refuses bounds that
// select nothing (ErrEmptyRange), so resuming after the last key a stored
// range can hold must refuse too rather than return [cursor+0x00,
// cursor+0x00).
func TestAfterNeverEmpty(t *testing.T) {
	cursor := SourceChunkKey(fxS, fxA, 0)
	stored, err := FromStoredBounds(Sources, refPrefix(fxS), cat(cursor.Bytes(), []byte{0}))
	if err != nil {
		t.Fatal(err)
	}
	r, err := stored.After(cursor)
	if err == nil && (!r.Valid() || r.upper != nil && bytes.Compare(r.lower, r.upper) >= 0) {
		t.Errorf("After(the last key of %v) = %v: an empty range; want ErrEmptyRange", stored, r)
	}
	if err != nil && !errors.Is(err, ErrEmptyRange) {
		t.Errorf("After(the last key of %v): %v, want ErrEmptyRange", stored, err)
	}
}

// TestDescribeSystemVersionKeys: a system key of edge_versions is the
// deployment secret's; one of node_versions, which holds no system shape,
// is not rendered as it.
func TestDescribeSystemVersionKeys(t *testing.T) {
	secret := SystemScope{}.DeploymentSecretKey(uuid.UUID{1}, MinTimestamp, MinTimestamp)
	b := secret.Bytes()
	for _, tt := range []struct {
		cf   ColumnFamily
		want string
	}{
		{EdgeVersions, "edge_versions scope=system deployment_secret="},
		{NodeVersions, "node_versions scope=system id(no system layout)="},
	} {
		got, err := DescribeKey(tt.cf, b)
		if err != nil || !strings.HasPrefix(got, tt.want) {
			t.Errorf("DescribeKey(%s, the secret's bytes) = %q, %v; want %q...", tt.cf, got, err, tt.want)
		}
	}
}
