package sources

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/google/uuid"
	"lukechampine.com/blake3"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/blocklist"
)

// RedactionPlan is a redaction or a deletion of one blob, computed from
// one snapshot: the rows it writes and deletes (AddTo) and the passages
// it must report (Overlapping). The rows it changes are all of the blob's
// rows of the sources family, storage.SourceRows: the range the caller
// compacts so that the removed bytes leave every file of the store.
//
// This package writes nothing itself: the caller (the tenant lifecycle)
// adds the plan to the batch that also records the erasure-ledger entry,
// and commits it durably. The plan applies only over the state it was
// planned from: AddTo refuses a plan whose blob changed since (ErrBadPlan),
// and makes the batch conditional on the blob's redaction record, which
// every redaction rewrites, still holding what the plan read (or still
// being absent). Of two plans of one blob committed at once, by two
// processes on one store, one lands; the engine refuses the other with
// storage.ErrConflict, and nothing of it is applied.
type RedactionPlan struct {
	store       *Store
	scope       storage.TenantScope
	blob        Blob                // as planned from
	ranges      []storage.BlobRange // the ranges asked for, merged; nil for a deletion
	record      redaction           // after the operation, without its ledger entry
	stored      []byte              // the record's value when planned; nil if none
	rewrites    []chunkText
	digest      [blocklist.SecretLen]byte
	overlapping []Provenance
	when        storage.Timestamp
}

// chunkText is the new text of one chunk.
type chunkText struct {
	index uint64
	text  []byte
}

// errNothingNew reports ranges whose bytes are all redacted already.
var errNothingNew = fmt.Errorf("%w: every byte of the ranges is redacted already", ErrBadRange)

// PlanRedaction plans taking ranges (original coordinates) out of blob of
// tenant scope. The ranges must be non-empty, inside the original text,
// with both ends on UTF-8 character boundaries of it (an end inside an
// earlier redaction, whose bytes are gone, is absorbed by it), and must
// take out at least one byte that is not redacted yet; otherwise
// ErrBadRange. Ranges that overlap or touch each other or earlier
// redactions merge. ErrNoBlob if the tenant has no such blob, ErrDeleted
// if it was deleted.
func (s *Store) PlanRedaction(scope storage.TenantScope, blob uuid.UUID, ranges []storage.BlobRange) (*RedactionPlan, error) {
	if len(ranges) == 0 {
		return nil, fmt.Errorf("redact blob %s: no ranges: %w", blob, ErrBadRange)
	}
	for _, r := range ranges {
		if r.Start >= r.End {
			return nil, fmt.Errorf("redact blob %s: range %s: %w", blob, r, ErrBadRange)
		}
	}
	p, err := s.plan(scope, blob, mergeRanges(ranges), rangeEnds(ranges))
	if err != nil {
		return nil, fmt.Errorf("redact blob %s: %w", blob, err)
	}
	return p, nil
}

// PlanDelete plans deleting blob of tenant scope: every chunk row goes,
// and the redaction record says deleted. ErrNoBlob if the tenant has no
// such blob, ErrDeleted if it was deleted already.
func (s *Store) PlanDelete(scope storage.TenantScope, blob uuid.UUID) (*RedactionPlan, error) {
	p, err := s.plan(scope, blob, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("delete blob %s: %w", blob, err)
	}
	return p, nil
}

// plan plans taking the merged ranges out of blob id, or deleting it if
// ranges is nil; ends are the ends of the ranges as asked for, sorted. It
// reads the whole current text once: to check the ends against it, to
// check it against its hash, to compute its keyed digest (what the
// blocklist takes) and the hash of the text after, and to cut the chunks
// the ranges overlap.
func (s *Store) plan(scope storage.TenantScope, id uuid.UUID, ranges []storage.BlobRange, ends []uint64) (*RedactionPlan, error) {
	keyer, err := s.blocklistKeyer()
	if err != nil {
		return nil, err
	}
	snap, err := s.engine.Snapshot()
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	b, head, stored, err := stat(snap, scope, id)
	if err != nil {
		return nil, err
	}
	p := &RedactionPlan{store: s, scope: scope, blob: b, ranges: ranges, stored: stored, when: storage.TimestampOf(s.now())}
	deleted := ranges == nil
	after := b.Redacted
	if !deleted {
		if last := ranges[len(ranges)-1]; last.End > uint64(b.Len) {
			return nil, fmt.Errorf("range %s of a %d-byte text: %w", last, b.Len, ErrBadRange)
		}
		after = mergeRanges(append(slices.Clone(b.Redacted), ranges...))
		if removed(after, 0, uint64(b.Len)) == removed(b.Redacted, 0, uint64(b.Len)) {
			return nil, errNothingNew
		}
	}
	ends = endsToCheck(ends, b.Redacted, uint64(b.Len))
	keyed, current, next := keyer.Hasher(), blake3.New(32, nil), blake3.New(32, nil)
	for i := range b.Chunks() {
		text := head
		if i > 0 {
			if text, err = readChunk(snap, scope, b, i); err != nil {
				return nil, err
			}
		}
		_, _ = keyed.Write(text)
		_, _ = current.Write(text)
		lo, hi := b.window(i)
		for len(ends) > 0 && ends[0] < hi {
			off := ends[0] - lo - removed(b.Redacted, lo, ends[0])
			if !utf8.RuneStart(text[off]) {
				return nil, fmt.Errorf("range end %d inside a UTF-8 character: %w", ends[0], ErrBadRange)
			}
			ends = ends[1:]
		}
		if !deleted && overlapsAny(ranges, lo, hi) {
			text = cut(text, b.Redacted, after, lo, hi)
			p.rewrites = append(p.rewrites, chunkText{i, text})
		}
		_, _ = next.Write(text)
	}
	if !bytes.Equal(current.Sum(nil), b.TextHash[:]) {
		return nil, fmt.Errorf("blob %s: text does not hash to its header or redaction record: %w", id, ErrCorrupt)
	}
	p.digest = keyed.Sum()
	p.record = redaction{length: uint64(b.Len), original: b.Hash, ranges: after, deleted: deleted, current: emptyHash}
	if !deleted {
		copy(p.record.current[:], next.Sum(nil))
	}
	if stored != nil {
		rec, err := decodeRedaction(id, stored)
		if err != nil {
			return nil, err
		}
		p.record.ledger = rec.ledger
	}
	reported := ranges
	if deleted {
		reported = []storage.BlobRange{{Start: 0, End: math.MaxUint64}}
	}
	if p.overlapping, err = spansOverlapping(snap, scope, id, reported); err != nil {
		return nil, err
	}
	return p, nil
}

// rangeEnds returns the ends of ranges, sorted and distinct.
func rangeEnds(ranges []storage.BlobRange) []uint64 {
	ends := make([]uint64, 0, 2*len(ranges))
	for _, r := range ranges {
		ends = append(ends, r.Start, r.End)
	}
	slices.Sort(ends)
	return slices.Compact(ends)
}

// endsToCheck returns the sorted ends whose character boundary the text
// must show: those before the end of the text whose byte no earlier
// redaction took. The first byte of an earlier redaction is a boundary
// already, and an end inside one cannot be checked (its bytes are gone)
// but is absorbed by the merge: the stored ranges' ends stay boundaries.
func endsToCheck(ends []uint64, redacted []storage.BlobRange, length uint64) []uint64 {
	return slices.DeleteFunc(ends, func(e uint64) bool {
		i := firstFrom(redacted, e)
		return e >= length || i < len(redacted) && redacted[i].Start <= e
	})
}

// overlapsAny reports whether one of the merged ranges rs shares a byte
// with [lo, hi).
func overlapsAny(rs []storage.BlobRange, lo, hi uint64) bool {
	i := firstFrom(rs, lo)
	return i < len(rs) && rs[i].Start < hi
}

// Blob returns the id of the blob the plan redacts or deletes.
func (p *RedactionPlan) Blob() uuid.UUID { return p.blob.ID }

// Ranges returns the ranges the plan takes out, merged and sorted, in
// original coordinates; nil for a deletion.
func (p *RedactionPlan) Ranges() []storage.BlobRange { return slices.Clone(p.ranges) }

// Deleted reports whether the plan deletes the blob.
func (p *RedactionPlan) Deleted() bool { return p.record.deleted }

// KeyedDigest returns the keyed digest of the text the operation takes
// out of the store: the blob's text as it was before it. The plan
// blocklists it; the erasure ledger keeps it, so that a replay can
// blocklist it again in a store that lacks the blob.
func (p *RedactionPlan) KeyedDigest() [32]byte { return p.digest }

// Overlapping returns every passage of the blob that overlaps the ranges
// (every passage, for a deletion), with its facts: what the operation
// must report, and may erase.
func (p *RedactionPlan) Overlapping() []Provenance { return slices.Clone(p.overlapping) }

// AddTo adds to b every row the operation writes or deletes: the chunks
// it rewrites (or, for a deletion, deletes), the redaction record with
// ledgerEntry appended to its ledger entries, and the blocklist row of
// KeyedDigest, on the condition that the record is still as planned.
// ErrBadLedgerEntry for a nil entry or one the record lists; ErrBadPlan if
// the blob changed since the plan was made.
func (p *RedactionPlan) AddTo(b *storage.Batch, ledgerEntry uuid.UUID) error {
	switch {
	case p == nil:
		return fmt.Errorf("redaction: no plan: %w", ErrBadPlan)
	case b == nil:
		return fmt.Errorf("redaction of blob %s: %w", p.blob.ID, storage.ErrNilBatch)
	case ledgerEntry == uuid.Nil || p.record.lists(ledgerEntry):
		return fmt.Errorf("redaction of blob %s: ledger entry %s: %w", p.blob.ID, ledgerEntry, ErrBadLedgerEntry)
	}
	if _, _, stored, err := stat(p.store.engine, p.scope, p.blob.ID); err != nil || !sameValue(stored, p.stored) {
		return fmt.Errorf("redaction of blob %s: %w (now: %v)", p.blob.ID, ErrBadPlan, err)
	}
	rec := p.record
	rec.ledger = append(slices.Clone(rec.ledger), ledgerEntry)
	if rec.deleted {
		for i := range p.blob.Chunks() {
			b.Delete(storage.SourceChunkKey(p.scope, p.blob.ID, i))
		}
	}
	for _, c := range p.rewrites {
		if c.index == 0 {
			b.Put(storage.SourceChunkKey(p.scope, p.blob.ID, 0), appendHeadChunk(nil, p.blob, c.text))
		} else {
			b.Put(storage.SourceChunkKey(p.scope, p.blob.ID, c.index), appendChunk(nil, c.text))
		}
	}
	record := storage.RedactionRecordKey(p.scope, p.blob.ID)
	if p.stored != nil {
		b.RequireValue(record, p.stored)
	} else {
		b.RequireAbsent(record)
	}
	b.Put(record, appendRedaction(nil, rec))
	b.Put(storage.BlocklistKey(p.scope, p.digest[:]), appendBlockRow(nil, blockRow{kind: blockKindOf(rec.deleted), entry: ledgerEntry, when: p.when}))
	return b.Err()
}

// AddReplay adds to b what the erasure-ledger entry ledgerEntry recorded
// (a redaction of ranges, or a deletion, of blob of tenant scope, which
// blocklisted keyedDigest), against whatever a restored store holds: if
// the blob's record lists ledgerEntry already, or the blob is absent or
// deleted, only the blocklist row of keyedDigest; otherwise the rows of
// the operation planned again, and the blocklist row of keyedDigest too
// if the text's digest differs now (a store restored under another
// deployment's secret blocklists the text under both).
func (s *Store) AddReplay(b *storage.Batch, scope storage.TenantScope, blob uuid.UUID, ranges []storage.BlobRange, deleted bool, keyedDigest [32]byte, ledgerEntry uuid.UUID) error {
	switch {
	case b == nil:
		return fmt.Errorf("replay on blob %s: %w", blob, storage.ErrNilBatch)
	case ledgerEntry == uuid.Nil:
		return fmt.Errorf("replay on blob %s: nil ledger entry: %w", blob, ErrBadLedgerEntry)
	}
	blocklistOnly := func() error {
		b.Put(storage.BlocklistKey(scope, keyedDigest[:]), appendBlockRow(nil, blockRow{kind: blockKindOf(deleted), entry: ledgerEntry, when: storage.TimestampOf(s.now())}))
		return b.Err()
	}
	_, _, stored, err := stat(s.engine, scope, blob)
	if stored != nil {
		rec, err := decodeRedaction(blob, stored)
		if err != nil {
			return fmt.Errorf("replay on blob %s: %w", blob, err)
		}
		if rec.lists(ledgerEntry) {
			return blocklistOnly()
		}
	}
	switch {
	case errors.Is(err, ErrNoBlob), errors.Is(err, ErrDeleted):
		return blocklistOnly()
	case err != nil:
		return fmt.Errorf("replay on blob %s: %w", blob, err)
	}
	var p *RedactionPlan
	if deleted {
		p, err = s.PlanDelete(scope, blob)
	} else {
		p, err = s.PlanRedaction(scope, blob, ranges)
	}
	switch {
	case errors.Is(err, errNothingNew):
		return blocklistOnly()
	case err != nil:
		return fmt.Errorf("replay: %w", err)
	}
	if err := p.AddTo(b, ledgerEntry); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if p.digest != keyedDigest {
		return blocklistOnly()
	}
	return nil
}
