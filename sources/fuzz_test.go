package sources

import (
	"bytes"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Native fuzz targets, one per decoder of this package's values and one
// for the canonical-text check. None may panic; every value a decoder
// accepts must encode back to the same bytes, and every refusal must wrap
// ErrCorrupt. The committed seed corpus lives in testdata/fuzz/<target>/.

// refused reports whether a decoder refused its input, failing t unless
// the error wraps ErrCorrupt.
func refused(t *testing.T, err error) bool {
	t.Helper()
	if err != nil && !errors.Is(err, ErrCorrupt) {
		t.Fatalf("error %v does not wrap ErrCorrupt", err)
	}
	return err != nil
}

var fuzzBlob = func() Blob {
	text := []byte("fuzz")
	return Blob{ID: BlobID(text), Len: 4, ChunkSize: ChunkSize, Ingested: 12345, Hash: hashOf(text)}
}()

func hashOf(text []byte) (sum [32]byte) {
	sum, _, _ = hashCanonical(bytes.NewReader(text))
	return sum
}

func FuzzDecodeHeadChunk(f *testing.F) {
	f.Add(appendHeadChunk(nil, fuzzBlob, []byte("fuzz")))
	f.Add(appendHeadChunk(nil, fuzzBlob, []byte("fuzz!")))
	f.Add([]byte{valueFormat})
	f.Fuzz(func(t *testing.T, v []byte) {
		b, text, err := decodeHeadChunk(fuzzBlob.ID, v, nil)
		if refused(t, err) {
			return
		}
		if b.ID != fuzzBlob.ID || idOfHash(b.Hash) != b.ID || b.Len < 0 || b.ChunkSize == 0 {
			t.Fatalf("accepted an inconsistent header %+v", b)
		}
		if again := appendHeadChunk(nil, b, text); !bytes.Equal(again, v) {
			t.Fatalf("re-encoded %x, want %x", again, v)
		}
	})
}

func FuzzDecodeChunk(f *testing.F) {
	f.Add(uint64(1), uint32(4), int64(9), appendChunk(nil, []byte("tail!")))
	f.Add(uint64(1), uint32(ChunkSize), int64(ChunkSize+1), appendChunk(nil, []byte("x")))
	f.Add(uint64(0), uint32(0), int64(0), []byte{})
	f.Fuzz(func(t *testing.T, i uint64, size uint32, n int64, v []byte) {
		if size == 0 || n < 0 {
			return // a header that decodeHeadChunk refuses
		}
		b := Blob{ID: fuzzBlob.ID, Len: n, ChunkSize: size}
		if i == 0 || i >= b.Chunks() {
			return // chunk 0 is the header's; no reader asks past the last
		}
		text, err := decodeChunk(b, i, v)
		if refused(t, err) {
			return
		}
		if len(text) != b.chunkLen(i) || !bytes.Equal(appendChunk(nil, text), v) {
			t.Fatalf("chunk %d of %+v: accepted %d bytes of text", i, b, len(text))
		}
	})
}

func FuzzDecodeFacts(f *testing.F) {
	facts := []Fact{
		{Kind: storage.IndexNode, ID: uuid.UUID{1}, ValidStart: -5, TxStart: 7},
		{Kind: storage.IndexNode, ID: uuid.UUID{1}, ValidStart: -5, TxStart: 8},
		{Kind: storage.IndexEdge, ID: uuid.UUID{2}, ValidStart: storage.MinTimestamp, TxStart: storage.MaxTimestamp},
	}
	f.Add(appendFacts(nil, facts))
	f.Add(appendFacts(nil, facts[:1]))
	f.Add(appendFacts(nil, []Fact{facts[1], facts[0]}))
	f.Add([]byte{valueFormat, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, v []byte) {
		got, err := decodeFacts(v)
		if refused(t, err) {
			return
		}
		for i, fact := range got {
			if checkFact(fact) != nil || i > 0 && compareFacts(got[i-1], fact) >= 0 {
				t.Fatalf("accepted fact %d %v", i, fact)
			}
		}
		if again := appendFacts(nil, got); !bytes.Equal(again, v) {
			t.Fatalf("re-encoded %x, want %x", again, v)
		}
	})
}

func FuzzDecodeTrace(f *testing.F) {
	f.Add(appendTrace(nil, Trace{Query: "graph.neighbors", AsOf: 5, Recorded: 6,
		Params: map[string]string{"user": "u", "hops": "2"}, Results: []uuid.UUID{{1}, {2}}}))
	f.Add(appendTrace(nil, Trace{Query: "vector.knn"}))
	f.Add([]byte{valueFormat})
	f.Fuzz(func(t *testing.T, v []byte) {
		tr, err := decodeTrace(uuid.UUID{9}, v)
		if refused(t, err) {
			return
		}
		if tr.check() != nil {
			t.Fatalf("accepted a trace RecordTrace refuses: %+v", tr)
		}
		if again := appendTrace(nil, tr); !bytes.Equal(again, v) {
			t.Fatalf("re-encoded %x, want %x", again, v)
		}
	})
}

// FuzzCanonical holds the chunked check to utf8.Valid, with the text cut
// into pieces at any two points, and the offset it reports to the first
// invalid byte.
func FuzzCanonical(f *testing.F) {
	f.Add([]byte("plain"), uint8(1), uint8(3))
	f.Add([]byte("🦫é"), uint8(2), uint8(5))
	f.Add([]byte("ok\xed\xa0\x80"), uint8(3), uint8(4))
	f.Add([]byte("\xf0\x9f\xa6"), uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, text []byte, cut1, cut2 uint8) {
		a, b := min(int(cut1), len(text)), min(int(cut2), len(text))
		a, b = min(a, b), max(a, b)
		var c canonicalChecker
		c.write(text[:a])
		c.write(text[a:b])
		c.write(text[b:])
		err := c.close()
		if (err == nil) != utf8.Valid(text) {
			t.Fatalf("%q cut at %d, %d: %v, utf8.Valid %v", text, a, b, err, utf8.Valid(text))
		}
		if err != nil && !errors.Is(err, ErrNotCanonical) {
			t.Fatalf("error %v does not wrap ErrNotCanonical", err)
		}
		if whole := CheckCanonical(text); (whole == nil) != (err == nil) || err != nil && whole.Error() != err.Error() {
			t.Fatalf("%q: in pieces %v, whole %v", text, err, whole)
		}
	})
}

var fuzzRedaction = redaction{
	length:   4,
	original: fuzzBlob.Hash,
	current:  hashOf([]byte("fz")),
	ranges:   []storage.BlobRange{{Start: 1, End: 2}, {Start: 3, End: 4}},
	ledger:   []uuid.UUID{{1}, {2}},
}

func FuzzDecodeRedaction(f *testing.F) {
	deleted := fuzzRedaction
	deleted.deleted, deleted.current, deleted.ranges = true, emptyHash, nil
	f.Add(appendRedaction(nil, fuzzRedaction))
	f.Add(appendRedaction(nil, deleted))
	f.Add([]byte{valueFormat})
	f.Fuzz(func(t *testing.T, v []byte) {
		rec, err := decodeRedaction(fuzzBlob.ID, v)
		if refused(t, err) {
			return
		}
		if rec.check(fuzzBlob.ID, boolByte(rec.deleted)) != nil {
			t.Fatalf("accepted a record check refuses: %+v", rec)
		}
		if again := appendRedaction(nil, rec); !bytes.Equal(again, v) {
			t.Fatalf("re-encoded %x, want %x", again, v)
		}
	})
}

func FuzzDecodeBlockRow(f *testing.F) {
	f.Add(appendBlockRow(nil, blockRow{kind: blockRedact, entry: uuid.UUID{1}, when: 5}))
	f.Add(appendBlockRow(nil, blockRow{kind: blockDelete, entry: uuid.UUID{2}, when: storage.MinTimestamp}))
	f.Add([]byte{valueFormat, 3})
	f.Fuzz(func(t *testing.T, v []byte) {
		row, err := decodeBlockRow(v)
		if refused(t, err) {
			return
		}
		if again := appendBlockRow(nil, row); !bytes.Equal(again, v) {
			t.Fatalf("re-encoded %x, want %x", again, v)
		}
	})
}
