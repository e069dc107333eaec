package temporal

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/google/uuid"
)

func sampleVersions() map[string]Version {
	from, to := uuid.MustParse("0190a0b0-0000-7000-8000-000000000001"), uuid.MustParse("0190a0b0-0000-7000-8000-000000000002")
	return map[string]Version{
		"empty node": {Kind: EntityNode, Valid: Interval{End: Forever}, TxEnd: Forever},
		"tombstone":  {Kind: EntityNode, Valid: Interval{End: Forever}, TxEnd: 42, Tombstone: true},
		"node with everything": {
			Kind: EntityNode, Valid: Interval{End: -5}, TxEnd: Forever,
			Labels: []string{"Company", "Person"},
			Props: Properties{
				"name": String("Ada"), "age": Int(-36), "score": Float(math.NaN()),
				"alive": Bool(false), "blob": Bytes([]byte{0, 1, 0xff}), "empty": String(""),
			},
		},
		"edge": {
			Kind: EntityEdge, Valid: Interval{End: 99}, TxEnd: 7, From: from, To: to, Type: "WORKS_AT",
			Props: Properties{"since": Int(1990)},
		},
	}
}

func TestValueRoundTrip(t *testing.T) {
	for name, v := range sampleVersions() {
		t.Run(name, func(t *testing.T) {
			b := AppendValue(nil, &v)
			got, err := DecodeValue(b)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !got.Equal(&v) {
				t.Fatalf("round trip:\n got %#v\nwant %#v", got, v)
			}
			if again := AppendValue(nil, &got); !bytes.Equal(again, b) {
				t.Fatalf("re-encode differs:\n%x\n%x", again, b)
			}
		})
	}
}

// TestValueLayout pins the bytes of a small node value, so that the
// documented format cannot drift from the code.
func TestValueLayout(t *testing.T) {
	v := Version{Kind: EntityNode, Valid: Interval{End: 2}, TxEnd: 3, Tombstone: true,
		Labels: []string{"A"}, Props: Properties{"b": Bool(true)}}
	want := []byte{
		1, 0, 1, // version, kind node, flags tombstone
		0, 0, 0, 0, 0, 0, 0, 2, // valid end
		0, 0, 0, 0, 0, 0, 0, 3, // tx end
		1, 1, 'A', // one label "A"
		1, 1, 'b', 4, 1, // one property "b" bool true
	}
	if got := AppendValue(nil, &v); !bytes.Equal(got, want) {
		t.Fatalf("layout:\n got %v\nwant %v", got, want)
	}
}

func TestDecodeValueRejects(t *testing.T) {
	node := AppendValue(nil, &Version{Kind: EntityNode, TxEnd: Forever, Labels: []string{"a", "b"}})
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(node)) }
	cases := map[string][]byte{
		"empty":              nil,
		"short header":       node[:10],
		"format version":     mutate(func(b []byte) []byte { b[0] = 2; return b }),
		"kind":               mutate(func(b []byte) []byte { b[1] = 7; return b }),
		"flags":              mutate(func(b []byte) []byte { b[2] = 0x80; return b }),
		"truncated label":    node[:len(node)-2],
		"trailing byte":      append(bytes.Clone(node), 0),
		"labels not sorted":  mutate(func(b []byte) []byte { b[21], b[23] = 'b', 'a'; return b }),
		"duplicate label":    mutate(func(b []byte) []byte { b[23] = 'a'; return b }),
		"count too large":    mutate(func(b []byte) []byte { b[19] = 0x7f; return b }),
		"non-minimal varint": append(append(bytes.Clone(node[:19]), 0x80, 0x00), 0),
		"edge truncated":     AppendValue(nil, &Version{Kind: EntityEdge, Type: "T"})[:30],
		"empty edge type":    AppendValue(nil, &Version{Kind: EntityEdge}),
		"bad bool":           append(append(bytes.Clone(node[:19]), 0, 1, 1, 'x', 4), 2),
		"bad value kind":     append(append(bytes.Clone(node[:19]), 0, 1, 1, 'x', 9), 2),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := DecodeValue(b); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("DecodeValue(%x) = %v, want ErrCorrupt", b, err)
			}
		})
	}
}

// FuzzDecodeValue checks that DecodeValue never panics and accepts only
// canonical encodings: whatever decodes re-encodes to the same bytes.
func FuzzDecodeValue(f *testing.F) {
	for _, v := range sampleVersions() {
		f.Add(AppendValue(nil, &v))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeValue(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if again := AppendValue(nil, &v); !bytes.Equal(again, b) {
			t.Fatalf("not canonical:\n in %x\nout %x", b, again)
		}
	})
}
