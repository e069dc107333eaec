package sources

import (
	"fmt"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// ChunkSize is the number of bytes of canonical text in every chunk of a
// blob but its last. 64 KiB keeps a chunk well inside every engine's
// limits (an etcd request of 1.5 MiB carries a batch of sixteen) while a
// read of a large document costs one lookup per 64 KiB.
const ChunkSize = 64 << 10

// Blob describes a stored document.
type Blob struct {
	ID        uuid.UUID
	Len       int64             // bytes of canonical text
	ChunkSize uint32            // bytes per chunk but the last, as written
	Ingested  storage.Timestamp // when the first ingest of the content was acknowledged
	Hash      [32]byte          // blake3-256 of the canonical text; ID is its first 16 bytes

	// Redacted is what redactions took out of the text: merged, sorted
	// ranges in original coordinates, nil if none. Len, Hash and the chunk
	// windows stay those of the original text; Hash is then retired, an
	// address only.
	Redacted []storage.BlobRange
	// TextHash is blake3-256 of the current text: Hash, unless redacted.
	TextHash [32]byte
}

// TextLen returns the length of the current text: Len, less the redacted
// bytes.
func (b Blob) TextLen() int64 { return b.Len - int64(removed(b.Redacted, 0, uint64(b.Len))) }

// Chunks returns the number of chunks the blob is stored in: at least one,
// since the empty document is one empty chunk.
func (b Blob) Chunks() uint64 {
	if b.Len == 0 {
		return 1
	}
	return (uint64(b.Len) + uint64(b.ChunkSize) - 1) / uint64(b.ChunkSize)
}

// window returns the original bytes [lo, hi) that chunk i covers: its
// text is what redactions left of them.
func (b Blob) window(i uint64) (lo, hi uint64) {
	lo = i * uint64(b.ChunkSize)
	if i+1 < b.Chunks() {
		return lo, lo + uint64(b.ChunkSize)
	}
	return lo, uint64(b.Len)
}

// chunkLen returns the number of text bytes chunk i must hold.
func (b Blob) chunkLen(i uint64) int {
	lo, hi := b.window(i)
	return int(hi - lo - removed(b.Redacted, lo, hi))
}

// The chunk values: chunk 0 is
//
//	[format 1][len 8][chunk size 4][ingested 8][hash 32][text]
//
// and every other chunk [format 1][text].
const headerLen = 1 + 8 + 4 + 8 + 32

// appendHeadChunk appends the value of chunk 0 of blob b, with its text.
func appendHeadChunk(dst []byte, b Blob, text []byte) []byte {
	dst = append(dst, valueFormat)
	dst = appendU64(dst, uint64(b.Len))
	dst = appendU32(dst, b.ChunkSize)
	dst = appendTime(dst, b.Ingested)
	dst = append(dst, b.Hash[:]...)
	return append(dst, text...)
}

// appendChunk appends the value of a chunk after the first.
func appendChunk(dst, text []byte) []byte { return append(append(dst, valueFormat), text...) }

// decodeHeadChunk decodes the value of chunk 0 of blob id, whose
// redaction record is rec (nil if it has none): the blob it describes and
// its text. The header must agree with the id, with itself and with the
// record; the text must have the length the header and the record give
// chunk 0.
func decodeHeadChunk(id uuid.UUID, v []byte, rec *redaction) (Blob, []byte, error) {
	r := newReader("chunk 0", v)
	b := Blob{ID: id, Len: int64(r.u64()), ChunkSize: r.u32(), Ingested: r.time()}
	copy(b.Hash[:], r.take(32))
	if r.err != nil {
		return Blob{}, nil, r.err
	}
	switch {
	case b.Len < 0:
		return Blob{}, nil, fmt.Errorf("blob %s: length %d: %w", id, b.Len, ErrCorrupt)
	case b.ChunkSize == 0:
		return Blob{}, nil, fmt.Errorf("blob %s: chunk size 0: %w", id, ErrCorrupt)
	case idOfHash(b.Hash) != id:
		return Blob{}, nil, fmt.Errorf("blob %s: header hash %x is another blob's: %w", id, b.Hash[:16], ErrCorrupt)
	case rec != nil && (rec.length != uint64(b.Len) || rec.original != b.Hash):
		return Blob{}, nil, fmt.Errorf("blob %s: the redaction record is of %d bytes hashing to %x: %w", id, rec.length, rec.original[:16], ErrCorrupt)
	}
	b.TextHash = b.Hash
	if rec != nil {
		b.Redacted, b.TextHash = rec.ranges, rec.current
	}
	text := r.b
	if len(text) != b.chunkLen(0) {
		return Blob{}, nil, fmt.Errorf("blob %s chunk 0: %d bytes of text, want %d: %w", id, len(text), b.chunkLen(0), ErrCorrupt)
	}
	return b, text, nil
}

// decodeChunk decodes the value of chunk i > 0 of blob b: its text, which
// must have the length the header gives it.
func decodeChunk(b Blob, i uint64, v []byte) ([]byte, error) {
	r := newReader("chunk", v)
	if r.err != nil {
		return nil, fmt.Errorf("blob %s chunk %d: %w", b.ID, i, r.err)
	}
	if want := b.chunkLen(i); len(r.b) != want {
		return nil, fmt.Errorf("blob %s chunk %d: %d bytes of text, want %d: %w", b.ID, i, len(r.b), want, ErrCorrupt)
	}
	return r.b, nil
}
