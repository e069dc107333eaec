package bitmap

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"

	"telha.dev/temporal"
)

func TestRevMapRoundTrip(t *testing.T) {
	in := revMap{row: 7, entries: []entry{
		entryOf(1, temporal.Int(-5)),
		entryOf(2, temporal.Float(math.Pi)),
		entryOf(3, temporal.String("x")),
		entryOf(4, temporal.Bool(true)),
		entryOf(5, temporal.Bytes([]byte{0})),
	}}
	got, err := decodeRevMap(encodeRevMap(in))
	if err != nil || got.row != in.row || !slices.Equal(got.entries, in.entries) {
		t.Fatalf("round trip = %+v, %v; want %+v", got, err, in)
	}
	if v := got.entries[0].value(); !v.Equal(temporal.Int(-5)) {
		t.Errorf("int entry value = %#v", v)
	}
	if v := got.entries[1].value(); !v.Equal(temporal.Float(math.Pi)) {
		t.Errorf("float entry value = %#v", v)
	}
}

func TestDecodeErrors(t *testing.T) {
	goodRev := encodeRevMap(revMap{row: 1, entries: []entry{entryOf(1, temporal.Int(1)), entryOf(2, temporal.Int(2))}})
	outOfOrder := encodeRevMap(revMap{row: 1, entries: []entry{entryOf(2, temporal.Int(1)), entryOf(1, temporal.Int(2))}})
	badKind := slices.Clone(goodRev)
	badKind[7+8] = 9
	empty, _ := roaring.New().ToBytes()
	decoders := map[string]func([]byte) error{
		"alloc":   func(b []byte) error { _, err := decodeAlloc(b); return err },
		"counter": func(b []byte) error { _, err := decodeCounter(b); return err },
		"id map":  func(b []byte) error { _, err := decodeIDMap(b); return err },
		"rev map": func(b []byte) error { _, err := decodeRevMap(b); return err },
		"posting": func(b []byte) error { _, err := decodePosting(b); return err },
	}
	tests := []struct {
		decoder string
		b       []byte
	}{
		{"alloc", nil}, {"alloc", []byte{2, 0, 0, 0, 0}}, {"alloc", []byte{1, 0, 0, 0}},
		{"counter", []byte{1, 0, 0, 0, 0, 0}},
		{"id map", []byte{1, 2, 3}}, {"id map", make([]byte, 17)}, {"id map", append([]byte{1}, make([]byte, 16)...)},
		{"rev map", []byte{1, 0, 0}}, {"rev map", goodRev[:len(goodRev)-1]}, {"rev map", outOfOrder}, {"rev map", badKind},
		{"posting", []byte{1}}, {"posting", []byte{1, 0xde, 0xad}}, {"posting", append([]byte{1}, empty...)},
		{"posting", []byte{0}},
	}
	for _, tt := range tests {
		if err := decoders[tt.decoder](tt.b); !errors.Is(err, ErrBadValue) {
			t.Errorf("%s %x: err = %v, want ErrBadValue", tt.decoder, tt.b, err)
		}
	}
}

func FuzzDecodeU32(f *testing.F) {
	f.Add(encodeAlloc(7))
	f.Add(encodeCounter(Overflow))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := decodeAlloc(b)
		if err != nil {
			if !errors.Is(err, ErrBadValue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !bytes.Equal(encodeAlloc(n), b) {
			t.Fatalf("re-encode of %d differs", n)
		}
	})
}

func FuzzDecodeIDMap(f *testing.F) {
	f.Add(encodeIDMap(uuid.MustParse("0190a4b2-0000-7000-8000-000000000001")))
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		id, err := decodeIDMap(b)
		if err != nil {
			if !errors.Is(err, ErrBadValue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !bytes.Equal(encodeIDMap(id), b) {
			t.Fatalf("re-encode of %s differs", id)
		}
	})
}

func FuzzDecodeRevMap(f *testing.F) {
	f.Add(encodeRevMap(revMap{row: 3}))
	f.Add(encodeRevMap(revMap{row: 1, entries: []entry{entryOf(1, temporal.Int(1)), entryOf(9, temporal.String("s"))}}))
	f.Add([]byte{1, 0, 0, 0, 0, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		rm, err := decodeRevMap(b)
		if err != nil {
			if !errors.Is(err, ErrBadValue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !bytes.Equal(encodeRevMap(rm), b) {
			t.Fatalf("re-encode of %+v differs", rm)
		}
	})
}

func FuzzDecodePosting(f *testing.F) {
	for _, rows := range [][]uint32{{0}, {1, 2, 3, 1 << 20}, rangeRows(0, 5000)} {
		v, err := encodePosting(roaring.BitmapOf(rows...))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(v)
	}
	f.Add([]byte{1, 0x3a, 0x30, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		bm, err := decodePosting(b)
		if err != nil {
			if !errors.Is(err, ErrBadValue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if bm.IsEmpty() {
			t.Fatal("accepted an empty posting")
		}
		// The decoded bitmap is usable: it survives a round trip.
		v, err := encodePosting(bm)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodePosting(v)
		if err != nil || !again.Equals(bm) {
			t.Fatalf("round trip of a decoded posting: %v", err)
		}
	})
}

func rangeRows(lo, hi uint32) []uint32 {
	out := make([]uint32, 0, hi-lo)
	for r := lo; r < hi; r++ {
		out = append(out, r)
	}
	return out
}
