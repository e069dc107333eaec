package storage

import (
	"bytes"
	"errors"
	"fmt"
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

// badInput is a variant of a family's canonical key that its decoder must
// reject with want.
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

// badInputs returns, for family cf, inputs of every wrong length, with a
// half-nil scope, and with every kind of unknown discriminator it has.
func badInputs(cf ColumnFamily) []badInput {
	k := canonicalKey(cf)
	zero := make([]byte, 16)
	in := []badInput{
		{"nil", nil, ErrWrongLength},
		{"empty", []byte{}, ErrWrongLength},
		{"scope only", k[:ScopeLen], ErrWrongLength},
		{"one byte short", k[:len(k)-1], ErrWrongLength},
		{"one byte long", append(bytes.Clone(k), 0), ErrWrongLength},
		{"longest key plus one", make([]byte, MaxKeyLen+1), ErrWrongLength},
		{"nil tenant", with(k, 0, zero...), ErrBadUUID},
		{"nil organization", with(k, 16, zero...), ErrBadUUID},
	}
	switch cf {
	case ValidTimeIndex, TxTimeIndex:
		in = append(in,
			badInput{"index kind 0x02", with(k, len(k)-1, 0x02), ErrUnknownKind},
			badInput{"index kind 0xff", with(k, len(k)-1, 0xff), ErrUnknownKind})
	case Jobs:
		in = append(in,
			badInput{"job state 0x00", with(k, ScopeLen, 0x00), ErrUnknownKind},
			badInput{"job state 0x06", with(k, ScopeLen, 0x06), ErrUnknownKind},
			badInput{"job state 0xff", with(k, ScopeLen, 0xff), ErrUnknownKind})
	case BitmapIndex:
		in = append(in,
			badInput{"bitmap kind 0x05", with(k, ScopeLen+8, 0x05), ErrUnknownKind},
			badInput{"bitmap kind 0xff", with(k, ScopeLen+8, 0xff), ErrUnknownKind},
			badInput{"kind byte missing", k[:ScopeLen+8], ErrWrongLength},
			badInput{"alloc kind on an id_map key", with(canonicalBitmap(BitmapIDMap), ScopeLen+8, byte(BitmapAlloc)), ErrWrongLength},
			badInput{"posting kind on a prop_counter key", with(canonicalBitmap(BitmapPropCounter), ScopeLen+8, byte(BitmapPosting)), ErrWrongLength})
	}
	return in
}

func canonicalBitmap(kind BitmapKind) []byte {
	for _, f := range keyFixtures() {
		if k := f.build(); k.Family() == BitmapIndex && BitmapKind(k.b[ScopeLen+8]) == kind {
			return k.Bytes()
		}
	}
	panic(fmt.Sprintf("no bitmap fixture of kind %s", kind))
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
	for _, cf := range []ColumnFamily{0, BitmapIndex + 1, 255} {
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
		if _, err := TenantAllAfterEntity(fxS, cf, fxA); !errors.Is(err, ErrUnknownFamily) {
			t.Errorf("TenantAllAfterEntity(S, %s, A) = %v: the family is not keyed by entity", cf, err)
		}
	}
}

// The spec's 13 families, in open order, with names that parse back.
func TestFamilies(t *testing.T) {
	want := []string{
		"node_versions", "edge_versions", "adjacency_out", "adjacency_in", "valid_time_index", "tx_time_index",
		"vectors", "schema", "sources", "spans", "traces", "jobs", "bitmap_index",
	}
	fams := Families()
	if len(fams) != len(want) {
		t.Fatalf("%d families, want %d", len(fams), len(want))
	}
	for i, cf := range fams {
		if cf.String() != want[i] || !cf.Valid() {
			t.Errorf("family %d = %s, want %s", i, cf, want[i])
		}
		if got, err := ParseColumnFamily(want[i]); got != cf || err != nil {
			t.Errorf("ParseColumnFamily(%q) = %v, %v", want[i], got, err)
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
		"JobKey(S, 0, ...)":             JobKey(fxS, 0, 1, fxCreated, fxA),
		"JobKey(S, 6, ...)":             JobKey(fxS, JobDead+1, 1, fxCreated, fxA),
		"SystemScope.JobKey(0, ...)":    sys.JobKey(0, 1, fxCreated, fxA),
		"SourceKey(S, A, MaxTimestamp)": SourceKey(fxS, fxA, MaxTimestamp),
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
		"TenantAll(S, 14)":             TenantAll(fxS, BitmapIndex+1),
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
	cursor := SourceKey(fxS, fxA, fxTx)
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
