package jobs

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/uuid"
)

// sampleRecords are values of every shape: empty fields, full fields, the
// limits.
var sampleRecords = []record{
	{maxAttempts: 1},
	{attempts: 2, maxAttempts: 5, notBefore: -1, payload: []byte("payload")},
	{attempts: 1, maxAttempts: 3, leaseExpiry: 1_780_000_000_000_000, token: uuid.UUID{1, 2, 3}, owner: "worker-1", payload: []byte{0, 0xFF}},
	{attempts: 1 << 31, maxAttempts: 1<<32 - 1, notBefore: 1 << 62, owner: string(bytes.Repeat([]byte{'o'}, MaxOwnerLen)), lastError: string(bytes.Repeat([]byte{'e'}, MaxErrorLen))},
}

func TestRecordRoundTrip(t *testing.T) {
	for i, r := range sampleRecords {
		b := r.encode(nil)
		got, err := decodeRecord(b)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !bytes.Equal(got.encode(nil), b) || got.owner != r.owner || got.lastError != r.lastError || got.token != r.token {
			t.Fatalf("record %d: round trip %+v, want %+v", i, got, r)
		}
	}
}

func TestRecordLayout(t *testing.T) {
	r := record{attempts: 1, maxAttempts: 2, notBefore: 3, leaseExpiry: 4, token: uuid.UUID{0xAA}, owner: "ow", lastError: "e", payload: []byte("p")}
	want := []byte{
		0x01,       // version
		0, 0, 0, 1, // attempts
		0, 0, 0, 2, // max attempts
		0, 0, 0, 0, 0, 0, 0, 3, // not before
		0, 0, 0, 0, 0, 0, 0, 4, // lease expiry
		0xAA, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // token
		2, 'o', 'w', // owner
		0, 1, 'e', // last error
		'p', // payload
	}
	if got := r.encode(nil); !bytes.Equal(got, want) {
		t.Fatalf("encode = % x\nwant     % x", got, want)
	}
}

func TestDecodeRecordRejects(t *testing.T) {
	good := sampleRecords[2].encode(nil)
	withByte := func(i int, v byte) []byte {
		b := bytes.Clone(good)
		b[i] = v
		return b
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"short", good[:valueFixedLen-1]},
		{"version", withByte(0, 0x02)},
		{"zero max attempts", append([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0}, make([]byte, 35)...)},
		{"owner overruns", withByte(41, 0xFF)},
		{"error overruns", good[:42+len("worker-1")+1]},
		{"error beyond the limit", withByte(42+len("worker-1"), 0xFF)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := decodeRecord(tt.in); !errors.Is(err, ErrBadValue) {
				t.Fatalf("decode: %v, want ErrBadValue", err)
			}
		})
	}
}

// FuzzDecodeRecord checks that the decoder never panics and that whatever it
// accepts encodes back to the same bytes. Seeds: the sample records here and
// the files under testdata/fuzz/FuzzDecodeRecord.
func FuzzDecodeRecord(f *testing.F) {
	for _, r := range sampleRecords {
		f.Add(r.encode(nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(b)
		if err != nil {
			if !errors.Is(err, ErrBadValue) {
				t.Fatalf("untyped error: %v", err)
			}
			return
		}
		if got := r.encode(nil); !bytes.Equal(got, b) {
			t.Fatalf("re-encode = % x, want % x", got, b)
		}
	})
}
