package vector

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"
)

func TestValueRoundTrip(t *testing.T) {
	for _, v := range [][]float32{
		{1},
		{0, -1.5, 3.25, math.MaxFloat32, -math.SmallestNonzeroFloat32},
		make([]float32, 1024),
	} {
		got, tomb, err := decodeValue(nil, encodeValue(v))
		if err != nil || tomb || !slices.Equal(got, v) {
			t.Errorf("round trip %v = %v, %t, %v", v, got, tomb, err)
		}
	}
	got, tomb, err := decodeValue(nil, encodeTombstone())
	if err != nil || !tomb || got != nil {
		t.Errorf("tombstone = %v, %t, %v", got, tomb, err)
	}
}

func TestValueReusesBuffer(t *testing.T) {
	buf := make([]float32, 8)
	got, _, err := decodeValue(buf, encodeValue([]float32{1, 2, 3}))
	if err != nil || &got[0] != &buf[0] {
		t.Fatalf("decode did not reuse the buffer: %v", err)
	}
}

func TestDecodeValueErrors(t *testing.T) {
	good := encodeValue([]float32{1, 2})
	tests := map[string][]byte{
		"empty":              nil,
		"short header":       good[:5],
		"version":            append([]byte{9}, good[1:]...),
		"unknown flag":       append([]byte{1, 2}, good[2:]...),
		"truncated":          good[:len(good)-1],
		"trailing":           append(slices.Clone(good), 0),
		"zero dimension":     {1, 0, 0, 0, 0, 0},
		"tombstone with dim": {1, 1, 0, 0, 0, 1, 0, 0, 0, 0},
		"huge dimension":     {1, 0, 0xff, 0xff, 0xff, 0xff},
	}
	for name, b := range tests {
		if _, _, err := decodeValue(nil, b); !errors.Is(err, ErrBadValue) {
			t.Errorf("%s: err = %v, want ErrBadValue", name, err)
		}
	}
}

// FuzzDecodeValue: the decoder never panics, and what it accepts
// re-encodes to the same bytes.
func FuzzDecodeValue(f *testing.F) {
	f.Add(encodeValue([]float32{1, 2, 3}))
	f.Add(encodeValue([]float32{float32(math.NaN())}))
	f.Add(encodeTombstone())
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, tomb, err := decodeValue(nil, b)
		if err != nil {
			if !errors.Is(err, ErrBadValue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		re := encodeTombstone()
		if !tomb {
			re = encodeValue(v)
		}
		if !bytes.Equal(re, b) {
			t.Fatalf("re-encode = %x, want %x", re, b)
		}
	})
}
