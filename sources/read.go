package sources

import (
	"bytes"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/google/uuid"
	"lukechampine.com/blake3"

	"telha.dev/core/storage"
)

// BlobReader streams the current text of one blob (the canonical text
// less what redactions took out), chunk by chunk in order, from a snapshot
// taken when it was opened: a concurrent write does not tear it. It holds
// one chunk at a time. Read returns io.EOF after the last byte only once
// the whole text has hashed to the blob's TextHash (the header's hash, or
// the redaction record's post-redaction hash); otherwise an error wrapping
// ErrCorrupt. Close releases the snapshot.
type BlobReader struct {
	blob  Blob
	snap  storage.Snapshot
	scope storage.TenantScope
	next  uint64 // the next chunk to read
	text  []byte // what is left of the current chunk
	hash  hash.Hash
	err   error
}

// Open returns a reader of blob id of tenant s; ErrNoBlob if the tenant
// has none, ErrDeleted if it was deleted.
func (s *Store) Open(scope storage.TenantScope, id uuid.UUID) (*BlobReader, error) {
	snap, err := s.engine.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("open blob %s: %w", id, err)
	}
	b, text, _, err := stat(snap, scope, id)
	if err != nil {
		return nil, errors.Join(err, snap.Close())
	}
	h := blake3.New(32, nil)
	_, _ = h.Write(text)
	return &BlobReader{blob: b, snap: snap, scope: scope, next: 1, text: text, hash: h}, nil
}

// Blob returns the blob being read.
func (r *BlobReader) Blob() Blob { return r.blob }

// Read implements io.Reader.
func (r *BlobReader) Read(p []byte) (int, error) {
	for len(r.text) == 0 && r.err == nil {
		r.err = r.fill()
	}
	if len(r.text) == 0 {
		return 0, r.err
	}
	n := copy(p, r.text)
	r.text = r.text[n:]
	return n, nil
}

// WriteTo implements io.WriterTo: io.Copy streams whole chunks.
func (r *BlobReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		for len(r.text) == 0 && r.err == nil {
			r.err = r.fill()
		}
		if len(r.text) == 0 {
			if r.err == io.EOF {
				return total, nil
			}
			return total, r.err
		}
		n, err := w.Write(r.text)
		total += int64(n)
		r.text = r.text[n:]
		if err != nil {
			return total, err
		}
	}
}

// fill reads the next chunk, or checks the hash after the last.
func (r *BlobReader) fill() error {
	if r.next >= r.blob.Chunks() {
		if !bytes.Equal(r.hash.Sum(nil), r.blob.TextHash[:]) {
			return fmt.Errorf("blob %s: text does not hash to its header or redaction record: %w", r.blob.ID, ErrCorrupt)
		}
		return io.EOF
	}
	text, err := readChunk(r.snap, r.scope, r.blob, r.next)
	if err != nil {
		return err
	}
	_, _ = r.hash.Write(text)
	r.text = text
	r.next++
	return nil
}

// Close releases the reader's snapshot.
func (r *BlobReader) Close() error {
	if r.err == nil {
		r.err = fmt.Errorf("blob %s: %w", r.blob.ID, storage.ErrClosed)
	}
	return r.snap.Close()
}

// readChunk reads the text of chunk i > 0 of blob b from r.
func readChunk(r storage.Reader, scope storage.TenantScope, b Blob, i uint64) ([]byte, error) {
	v, err := r.Get(storage.SourceChunkKey(scope, b.ID, i))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, fmt.Errorf("blob %s: chunk %d of %d missing: %w", b.ID, i, b.Chunks(), ErrCorrupt)
	}
	if err != nil {
		return nil, fmt.Errorf("blob %s chunk %d: %w", b.ID, i, err)
	}
	return decodeChunk(b, i, v)
}

// ReadRange reads the text of blob id in [start, end) into memory: a
// passage, read from the chunks that hold it. The offsets are of the
// original text, as spans' are; of a redacted blob it returns what
// redactions left of the passage. It does not check the whole blob's
// hash; Open does.
func (s *Store) ReadRange(scope storage.TenantScope, id uuid.UUID, start, end int64) ([]byte, error) {
	snap, err := s.engine.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", id, err)
	}
	defer snap.Close()
	b, head, _, err := stat(snap, scope, id)
	if err != nil {
		return nil, err
	}
	if start < 0 || start > end || end > b.Len {
		return nil, fmt.Errorf("read blob %s [%d, %d) of %d bytes: %w", id, start, end, b.Len, ErrBadSpan)
	}
	out := make([]byte, 0, end-start)
	for i := uint64(start) / uint64(b.ChunkSize); i < b.Chunks() && i*uint64(b.ChunkSize) < uint64(end); i++ {
		text := head
		if i > 0 {
			if text, err = readChunk(snap, scope, b, i); err != nil {
				return nil, err
			}
		}
		lo, hi := b.window(i)
		pos := uint64(0)
		for piece := range kept(b.Redacted, lo, hi) {
			from, to := max(piece.Start, uint64(start)), min(piece.End, uint64(end))
			if from < to {
				out = append(out, text[pos+from-piece.Start:pos+to-piece.Start]...)
			}
			pos += piece.End - piece.Start
		}
	}
	return out, nil
}
