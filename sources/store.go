package sources

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/google/uuid"
	"lukechampine.com/blake3"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/blocklist"
)

// Store holds the documents, spans and traces of every tenant of one
// engine. It is safe for concurrent use.
type Store struct {
	engine storage.Engine
	now    func() time.Time

	mu sync.Mutex // serialises the read-modify-write of span rows

	keyerMu sync.Mutex
	keyer   *blocklist.Keyer // the deployment's, once used
}

// Options configure a Store.
type Options struct {
	// Now is the clock of ingest and trace times; nil means time.Now.
	Now func() time.Time
}

// Open returns a Store over e. It reads nothing and caches nothing of any
// tenant, so a tenant wipe needs no notice; the first ingest or redaction
// reads (or creates) the deployment's blocklist secret and keeps its
// keyer.
func Open(e storage.Engine, opts Options) *Store {
	s := &Store{engine: e, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// batchBytes bounds the text of one ingest batch: sixteen chunks, inside
// an etcd request.
const batchBytes = 16 * ChunkSize

// Ingest stores the canonical text that src holds from its current offset
// to its end, for tenant s, and returns its blob. It reads src twice: once
// to check and hash the text (the blob id is its hash), then, from the same
// offset, to store it in chunks, holding one batch of chunks at a time. A
// text the tenant already holds is not written again: Ingest returns the
// stored blob, and created is false.
//
// Text that is not canonical is refused with ErrNotCanonical, a src
// whose bytes changed between the passes with ErrChanged, and a text that
// a redaction or deletion of the tenant took out with ErrBlocklisted (the
// first pass computes its keyed digest too); either way nothing is
// written. Chunk 0, with the header, is written last and durably: a blob
// exists once it is whole.
func (s *Store) Ingest(scope storage.TenantScope, src io.ReadSeeker) (b Blob, created bool, err error) {
	keyer, err := s.blocklistKeyer()
	if err != nil {
		return Blob{}, false, fmt.Errorf("ingest: %w", err)
	}
	start, err := src.Seek(0, io.SeekCurrent)
	if err != nil {
		return Blob{}, false, fmt.Errorf("ingest: %w", err)
	}
	keyed := keyer.Hasher()
	sum, n, err := hashCanonical(io.TeeReader(src, keyed))
	if err != nil {
		return Blob{}, false, fmt.Errorf("ingest: %w", err)
	}
	b = Blob{ID: idOfHash(sum), Len: n, ChunkSize: ChunkSize, Hash: sum, TextHash: sum}
	if err := checkBlocklist(s.engine, scope, keyed.Sum()); err != nil {
		return Blob{}, false, fmt.Errorf("ingest blob %s: %w", b.ID, err)
	}
	switch old, err := s.Stat(scope, b.ID); {
	case err == nil && old.Redacted != nil:
		return Blob{}, false, fmt.Errorf("ingest blob %s: %w", b.ID, ErrRedacted)
	case errors.Is(err, ErrDeleted):
		return Blob{}, false, fmt.Errorf("ingest: %w: %w", ErrRedacted, err)
	case err == nil:
		return old, false, nil
	case !errors.Is(err, ErrNoBlob):
		return Blob{}, false, fmt.Errorf("ingest: %w", err)
	}
	if _, err := src.Seek(start, io.SeekStart); err != nil {
		return Blob{}, false, fmt.Errorf("ingest blob %s: %w", b.ID, err)
	}
	b.Ingested = storage.TimestampOf(s.now())
	if err := s.write(scope, b, src); err != nil {
		return Blob{}, false, fmt.Errorf("ingest blob %s: %w", b.ID, err)
	}
	return b, true, nil
}

// IngestBytes is Ingest of text held in memory.
func (s *Store) IngestBytes(scope storage.TenantScope, text []byte) (Blob, bool, error) {
	return s.Ingest(scope, bytes.NewReader(text))
}

// hashCanonical reads src to its end, checking that it is canonical, and
// returns its blake3-256 hash and length.
func hashCanonical(src io.Reader) (sum [32]byte, n int64, err error) {
	h := blake3.New(32, nil)
	var c canonicalChecker
	buf := make([]byte, ChunkSize)
	for {
		m, rerr := io.ReadFull(src, buf)
		c.write(buf[:m])
		_, _ = h.Write(buf[:m])
		n += int64(m)
		if c.err != nil {
			return sum, n, c.err
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return sum, n, rerr
		}
	}
	if err := c.close(); err != nil {
		return sum, n, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, n, nil
}

// write stores blob b, whose text src holds, in batches of chunks; chunk
// 0 last, durably. It hashes what it stores, and refuses with ErrChanged,
// before chunk 0, a text that is not the one b describes.
func (s *Store) write(scope storage.TenantScope, b Blob, src io.Reader) error {
	h := blake3.New(32, nil)
	head := make([]byte, 0, headerLen+b.chunkLen(0))
	buf := make([]byte, ChunkSize)
	value := make([]byte, 0, 1+ChunkSize) // Batch.Put copies it
	var batch storage.Batch
	var pending int
	var n int64
	for i := range b.Chunks() {
		m, err := io.ReadFull(src, buf[:b.chunkLen(i)])
		n += int64(m)
		if err != nil && !(err == io.EOF && b.Len == 0) {
			return fmt.Errorf("chunk %d: read %d of %d bytes: %w (%w)", i, m, b.chunkLen(i), ErrChanged, err)
		}
		_, _ = h.Write(buf[:m])
		if i == 0 {
			head = appendHeadChunk(head, b, buf[:m])
			continue
		}
		value = appendChunk(value[:0], buf[:m])
		batch.Put(storage.SourceChunkKey(scope, b.ID, i), value)
		if pending += m; pending >= batchBytes {
			if err := s.apply(&batch, false); err != nil {
				return fmt.Errorf("chunks to %d: %w", i, err)
			}
			batch.Reset()
			pending = 0
		}
	}
	if m, _ := io.ReadFull(src, buf[:1]); m != 0 || n != b.Len || !bytes.Equal(h.Sum(nil), b.Hash[:]) {
		return ErrChanged
	}
	batch.Put(storage.SourceChunkKey(scope, b.ID, 0), head)
	return s.apply(&batch, true)
}

// Stat returns the blob id of tenant s; ErrNoBlob if the tenant has
// none, ErrDeleted if it was deleted.
func (s *Store) Stat(scope storage.TenantScope, id uuid.UUID) (Blob, error) {
	b, _, _, err := stat(s.engine, scope, id)
	return b, err
}

// stat reads the header of blob id from r, with the text of chunk 0 and
// the stored value of its redaction record (nil if none).
func stat(r storage.Reader, scope storage.TenantScope, id uuid.UUID) (b Blob, head, record []byte, err error) {
	var rec *redaction
	switch record, err = r.Get(storage.RedactionRecordKey(scope, id)); {
	case errors.Is(err, storage.ErrNotFound):
		record = nil
	case err != nil:
		return Blob{}, nil, nil, fmt.Errorf("blob %s: %w", id, err)
	default:
		decoded, err := decodeRedaction(id, record)
		if err != nil {
			return Blob{}, nil, nil, err
		}
		if decoded.deleted {
			return Blob{}, nil, record, fmt.Errorf("blob %s: %w", id, ErrDeleted)
		}
		rec = &decoded
	}
	v, err := r.Get(storage.SourceChunkKey(scope, id, 0))
	switch {
	case errors.Is(err, storage.ErrNotFound) && rec != nil:
		return Blob{}, nil, nil, fmt.Errorf("blob %s: a redaction record, but no chunk 0: %w", id, ErrCorrupt)
	case errors.Is(err, storage.ErrNotFound):
		return Blob{}, nil, nil, fmt.Errorf("blob %s: %w", id, ErrNoBlob)
	case err != nil:
		return Blob{}, nil, nil, fmt.Errorf("blob %s: %w", id, err)
	}
	b, head, err = decodeHeadChunk(id, v, rec)
	return b, head, record, err
}
