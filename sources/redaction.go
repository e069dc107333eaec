package sources

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"lukechampine.com/blake3"

	"telha.dev/core/storage"
)

// This file is the redaction record and blocklist row codecs; the range
// arithmetic is in ranges.go.

// emptyHash is blake3-256 of the empty text: the post-redaction hash of a
// deleted blob.
var emptyHash = blake3.Sum256(nil)

// redaction is a blob's redaction record, at the reserved slot of its id
// (storage.RedactionRecordKey). Its value, format 1 (big-endian):
//
//	[format 1][deleted 1][original length 8][original hash 32]
//	[post-redaction hash 32][ranges: count 4, (start 8, end 8)...]
//	[ledger entries: count 4, id 16...]
//
// The ranges are merged, sorted and in original coordinates; the ledger
// entries are the erasure-ledger entries of the redactions and the
// deletion, in the order they were made. The original hash is retired: the
// blob id is its first 16 bytes, but the stored text no longer hashes to
// it; the post-redaction hash is that of the current text (of the empty
// text once deleted). The original length keeps the coordinates checkable
// once the chunks are gone.
type redaction struct {
	length   uint64
	original [32]byte
	current  [32]byte
	ranges   []storage.BlobRange
	ledger   []uuid.UUID
	deleted  bool
}

// rangeWidth and entryWidth are the encoded widths of a range and of a
// ledger entry id.
const (
	rangeWidth = 16
	entryWidth = 16
)

func appendRedaction(dst []byte, rec redaction) []byte {
	dst = append(dst, valueFormat, boolByte(rec.deleted))
	dst = appendU64(dst, rec.length)
	dst = append(append(dst, rec.original[:]...), rec.current[:]...)
	dst = appendU32(dst, uint32(len(rec.ranges)))
	for _, r := range rec.ranges {
		dst = appendU64(appendU64(dst, r.Start), r.End)
	}
	dst = appendU32(dst, uint32(len(rec.ledger)))
	for _, e := range rec.ledger {
		dst = append(dst, e[:]...)
	}
	return dst
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// decodeRedaction decodes the redaction record of blob id and checks it
// is one this package writes.
func decodeRedaction(id uuid.UUID, v []byte) (redaction, error) {
	r := newReader("redaction record", v)
	deleted := r.u8()
	rec := redaction{deleted: deleted == 1, length: r.u64()}
	copy(rec.original[:], r.take(32))
	copy(rec.current[:], r.take(32))
	rec.ranges = make([]storage.BlobRange, r.count(rangeWidth))
	for i := range rec.ranges {
		rec.ranges[i] = storage.BlobRange{Start: r.u64(), End: r.u64()}
	}
	rec.ledger = make([]uuid.UUID, r.count(entryWidth))
	for i := range rec.ledger {
		rec.ledger[i] = r.id()
	}
	if err := r.end(); err != nil {
		return redaction{}, fmt.Errorf("blob %s: %w", id, err)
	}
	if err := rec.check(id, deleted); err != nil {
		return redaction{}, fmt.Errorf("blob %s redaction record: %w: %w", id, err, ErrCorrupt)
	}
	return rec, nil
}

// check reports whether rec, whose deleted byte was flag, is a record of
// blob id that this package could have written.
func (rec redaction) check(id uuid.UUID, flag byte) error {
	switch {
	case flag > 1:
		return fmt.Errorf("deleted byte %d", flag)
	case idOfHash(rec.original) != id:
		return fmt.Errorf("original hash %x is another blob's", rec.original[:16])
	case len(rec.ledger) == 0:
		return fmt.Errorf("no ledger entry")
	case !rec.deleted && len(rec.ranges) == 0:
		return fmt.Errorf("neither ranges nor deleted")
	case rec.deleted && rec.current != emptyHash:
		return fmt.Errorf("deleted, but the post-redaction hash is not the empty text's")
	}
	for i, r := range rec.ranges {
		switch {
		case r.Start >= r.End || r.End > rec.length:
			return fmt.Errorf("range %d %s of %d bytes", i, r, rec.length)
		case i > 0 && rec.ranges[i-1].End >= r.Start:
			return fmt.Errorf("ranges %d and %d not merged", i-1, i)
		}
	}
	seen := make(map[uuid.UUID]bool, len(rec.ledger))
	for _, e := range rec.ledger {
		if e == uuid.Nil || seen[e] {
			return fmt.Errorf("ledger entry %s nil or listed twice", e)
		}
		seen[e] = true
	}
	return nil
}

// lists reports whether ledger entry e made one of the record's operations.
func (rec redaction) lists(e uuid.UUID) bool { return slices.Contains(rec.ledger, e) }

// blockKind is the operation that blocklisted a text.
type blockKind uint8

// The blocklist kinds.
const (
	blockRedact blockKind = 1 // a redaction took the text out of a blob
	blockDelete blockKind = 2 // a deletion took the text out of the store
)

// blockKindOf is the kind of a deletion, or else of a redaction.
func blockKindOf(deleted bool) blockKind {
	if deleted {
		return blockDelete
	}
	return blockRedact
}

// blockRow is the value of a blocklist row (storage.BlocklistKey of the
// keyed digest of the text), format 1:
//
//	[format 1][kind 1][ledger entry 16][when 8]
type blockRow struct {
	kind  blockKind
	entry uuid.UUID
	when  storage.Timestamp
}

func appendBlockRow(dst []byte, row blockRow) []byte {
	dst = append(append(dst, valueFormat, byte(row.kind)), row.entry[:]...)
	return appendTime(dst, row.when)
}

func decodeBlockRow(v []byte) (blockRow, error) {
	r := newReader("blocklist row", v)
	row := blockRow{kind: blockKind(r.u8()), entry: r.id(), when: r.time()}
	if err := r.end(); err != nil {
		return blockRow{}, err
	}
	if row.kind != blockRedact && row.kind != blockDelete || row.entry == uuid.Nil {
		return blockRow{}, fmt.Errorf("blocklist row: kind %d, ledger entry %s: %w", row.kind, row.entry, ErrCorrupt)
	}
	return row, nil
}

// sameValue reports whether two stored values (nil for none) are equal.
func sameValue(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }
