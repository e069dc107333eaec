package storage

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/uuid"
)

// Native fuzz targets: one per decoder, one for Decode and DescribeKey
// across every family, one for ParseKey and one for FromStoredBounds. None
// may panic; every success must round-trip through the typed constructors.
// The committed seed corpus lives in testdata/fuzz/<target>/; the f.Add
// seeds below are rebuilt from the constructors on every run.

func FuzzDecodeNodeVersion(f *testing.F)    { fuzzDecoder(f, NodeVersions, DecodeNodeVersion) }
func FuzzDecodeEdgeVersion(f *testing.F)    { fuzzDecoder(f, EdgeVersions, DecodeEdgeVersion) }
func FuzzDecodeAdjacencyOut(f *testing.F)   { fuzzDecoder(f, AdjacencyOut, DecodeAdjacencyOut) }
func FuzzDecodeAdjacencyIn(f *testing.F)    { fuzzDecoder(f, AdjacencyIn, DecodeAdjacencyIn) }
func FuzzDecodeValidTimeIndex(f *testing.F) { fuzzDecoder(f, ValidTimeIndex, DecodeValidTimeIndex) }
func FuzzDecodeTxTimeIndex(f *testing.F)    { fuzzDecoder(f, TxTimeIndex, DecodeTxTimeIndex) }
func FuzzDecodeVector(f *testing.F)         { fuzzDecoder(f, Vectors, DecodeVector) }
func FuzzDecodeSchema(f *testing.F)         { fuzzDecoder(f, Schema, DecodeSchema) }
func FuzzDecodeSource(f *testing.F)         { fuzzDecoder(f, Sources, DecodeSource) }
func FuzzDecodeSpan(f *testing.F)           { fuzzDecoder(f, Spans, DecodeSpan) }
func FuzzDecodeTrace(f *testing.F)          { fuzzDecoder(f, Traces, DecodeTrace) }
func FuzzDecodeJob(f *testing.F)            { fuzzDecoder(f, Jobs, DecodeJob) }
func FuzzDecodeBitmap(f *testing.F)         { fuzzDecoder(f, BitmapIndex, DecodeBitmap) }

func fuzzDecoder[P DecodedKey](f *testing.F, cf ColumnFamily, decode func([]byte) (P, error)) {
	for _, b := range fuzzSeeds(cf) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := decode(b)
		checkDecoded(t, cf, b, p, err)
	})
}

// FuzzDecode runs Decode and DescribeKey on any family number.
func FuzzDecode(f *testing.F) {
	for _, cf := range append(Families(), 0, LastFamily+1, 255) {
		seeds := NodeVersions
		if cf.Valid() {
			seeds = cf
		}
		for _, b := range fuzzSeeds(seeds) {
			f.Add(uint8(cf), b)
		}
	}
	f.Fuzz(func(t *testing.T, family uint8, b []byte) {
		cf := ColumnFamily(family)
		p, err := Decode(cf, b)
		s, describeErr := DescribeKey(cf, b)
		if (err == nil) != (describeErr == nil) {
			t.Fatalf("Decode: %v, DescribeKey: %v", err, describeErr)
		}
		if !cf.Valid() {
			if !errors.Is(err, ErrUnknownFamily) {
				t.Fatalf("Decode(%d, %x) = %v, want ErrUnknownFamily", family, b, err)
			}
			return
		}
		checkDecoded(t, cf, b, p, err)
		if err == nil && s != p.String() {
			t.Fatalf("DescribeKey = %q, want %q", s, p.String())
		}
	})
}

// checkDecoded holds for any decoder on any input: a failure wraps one of
// the typed decoding errors; a success renders, and a constructor of the
// layout table builds exactly b again, wherever the scope has constructors
// for the family.
func checkDecoded(t *testing.T, cf ColumnFamily, b []byte, p DecodedKey, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrWrongLength) && !errors.Is(err, ErrHalfNilScope) && !errors.Is(err, ErrUnknownKind) {
			t.Fatalf("decode %s %x: untyped error %v", cf, b, err)
		}
		return
	}
	if p.String() == "" {
		t.Fatalf("decoded %s %x renders empty", cf, b)
	}
	// The decoders accept system-scope bytes of every family, for
	// forensics; only the families that hold system rows build them.
	if _, ok := rebuild(cf, b); !ok && (!p.keyScope().IsSystem() || hasSystemRows(cf)) {
		t.Fatalf("decoded %s %x as %v, which no constructor of the table builds", cf, b, p)
	}
}

// FuzzParseKey checks that ParseKey accepts exactly the bytes that decode in
// the family and carry the scope, and returns them unchanged.
func FuzzParseKey(f *testing.F) {
	for _, fx := range keyFixtures() {
		k := fx.build()
		for _, scope := range [][]byte{refPrefix(fxS), refPrefix(fxFF), nil, make([]byte, ScopeLen)} {
			f.Add(uint8(k.Family()), scope, k.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, family uint8, scope, b []byte) {
		var s TenantScope
		if len(scope) == ScopeLen {
			s, _ = NewTenantScope(uuid.UUID(scope[:16]), uuid.UUID(scope[16:])) // a nil component leaves s zero
		}
		cf := ColumnFamily(family)
		k, err := ParseKey(s, cf, b)
		_, decodeErr := Decode(cf, b)
		want := !s.IsZero() && decodeErr == nil && bytes.HasPrefix(b, refPrefix(s))
		switch {
		case (err == nil) != want:
			t.Fatalf("ParseKey(%v, %s, %x): %v, want success %v", s, cf, b, err, want)
		case err == nil && (!k.Valid() || k.Family() != cf || !bytes.Equal(k.Bytes(), b)):
			t.Fatalf("ParseKey(%v, %s, %x) = %s %x", s, cf, b, k.Family(), k.Bytes())
		case err != nil && s.IsZero() && !errors.Is(err, ErrInvalidKey):
			t.Fatalf("ParseKey with the zero scope: %v, want ErrInvalidKey", err)
		case err != nil && !s.IsZero() && decodeErr == nil && !errors.Is(err, ErrOutOfRange):
			t.Fatalf("ParseKey of another scope's key: %v, want ErrOutOfRange", err)
		}
	})
}

// FuzzFromStoredBounds checks the confinement re-check: bounds are accepted
// exactly when lower holds a whole tenant scope (neither the system prefix
// nor a half-nil one) and upper lies above lower and at or below that
// scope's upper bound (nil only for the last scope), and the range keeps its
// own copies of them.
func FuzzFromStoredBounds(f *testing.F) {
	for _, fx := range rangeFixtures() {
		if r, err := fx.build(); err == nil {
			f.Add(uint8(r.Family()), r.lower, r.upper, r.upper == nil)
		}
	}
	p := refPrefix(fxS)
	f.Add(uint8(Sources), p[:ScopeLen-1], refSucc(p), false)
	f.Add(uint8(Sources), p, cat(refSucc(p), []byte{0}), false)
	f.Add(uint8(Sources), p, p, false)
	f.Add(uint8(Sources), p, []byte(nil), true)
	f.Add(uint8(Sources), refPrefix(fxFF), []byte(nil), true)
	f.Add(uint8(0), p, refSucc(p), false)
	f.Fuzz(func(t *testing.T, family uint8, lower, upper []byte, unbounded bool) {
		if unbounded {
			upper = nil
		}
		cf := ColumnFamily(family)
		l, u := bytes.Clone(lower), bytes.Clone(upper) // inputs the test then overwrites
		r, err := FromStoredBounds(cf, l, u)

		var want error
		switch {
		case !cf.Valid():
			want = ErrUnknownFamily
		case len(lower) < ScopeLen:
			want = ErrWrongLength
		case bytes.Equal(lower[:ScopeLen], make([]byte, ScopeLen)):
			want = ErrNilScope
		case bytes.Equal(lower[:16], make([]byte, 16)) || bytes.Equal(lower[16:ScopeLen], make([]byte, 16)):
			want = ErrHalfNilScope
		case refSucc(lower[:ScopeLen]) != nil && (upper == nil || bytes.Compare(upper, refSucc(lower[:ScopeLen])) > 0):
			want = ErrNotConfined
		case upper != nil && bytes.Compare(lower, upper) >= 0:
			want = ErrEmptyRange
		}
		if want != nil {
			if !errors.Is(err, want) || r.Valid() {
				t.Fatalf("FromStoredBounds(%s, %x, %x) = %v, %v; want %v", cf, lower, upper, r, err, want)
			}
			return
		}
		if err != nil || !r.Valid() || r.Family() != cf || !r.WithinOneScope() {
			t.Fatalf("FromStoredBounds(%s, %x, %x) = %v, %v", cf, lower, upper, r, err)
		}
		clear(l) // the range must not alias its inputs
		clear(u)
		if !bytes.Equal(r.lower, lower) || !bytes.Equal(r.upper, upper) || (r.upper == nil) != (upper == nil) || cap(r.lower) != len(r.lower) {
			t.Fatalf("FromStoredBounds(%s, %x, %x) has bounds [%x, %x)", cf, lower, upper, r.lower, r.upper)
		}
	})
}

// fuzzSeeds returns seed inputs for the decoder of family cf: the key
// fixtures of every family (for other families mostly wrong lengths), and
// cf's bad inputs: wrong lengths, half-nil scopes and unknown kinds. It adds
// the all-zero (system) and all-0xff variants of cf's canonical key.
func fuzzSeeds(cf ColumnFamily) [][]byte {
	var seeds [][]byte
	for _, fx := range keyFixtures() {
		seeds = append(seeds, fx.build().Bytes())
	}
	for _, in := range badInputs(cf) {
		seeds = append(seeds, in.b)
	}
	n := len(canonicalKey(cf))
	return append(seeds, make([]byte, n), bytes.Repeat([]byte{0xff}, n))
}
