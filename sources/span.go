package sources

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Span is a passage of a blob: the bytes [Start, End) of its canonical
// text.
type Span struct {
	Source     uuid.UUID
	Start, End uint64
}

func (sp Span) String() string { return fmt.Sprintf("%s[%d:%d]", sp.Source, sp.Start, sp.End) }

// overlaps reports whether sp shares a byte with [start, end).
func (sp Span) overlaps(start, end uint64) bool { return sp.Start < end && start < sp.End }

// Fact is one node or edge version asserted from a passage: the kind and
// logical id of the entity, and the version's valid and transaction start.
type Fact struct {
	Kind       storage.IndexKind // storage.IndexNode or storage.IndexEdge
	ID         uuid.UUID
	ValidStart storage.Timestamp
	TxStart    storage.Timestamp
}

func (f Fact) String() string {
	return fmt.Sprintf("%s %s valid_start=%s tx_start=%s", f.Kind, f.ID, f.ValidStart, f.TxStart)
}

func compareFacts(a, b Fact) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), slices.Compare(a.ID[:], b.ID[:]),
		cmp.Compare(a.ValidStart, b.ValidStart), cmp.Compare(a.TxStart, b.TxStart))
}

// Provenance is a passage with the facts asserted from it: from Facts, all
// the span's facts; from Passages, those of the one fact asked for.
type Provenance struct {
	Span  Span
	Facts []Fact
}

// factWidth is the encoded width of a Fact: kind, id, two times.
const factWidth = 1 + 16 + 8 + 8

// appendFacts appends the value of a span row: its facts, sorted.
func appendFacts(dst []byte, facts []Fact) []byte {
	dst = appendU32(append(dst, valueFormat), uint32(len(facts)))
	for _, f := range facts {
		dst = append(dst, uint8(f.Kind))
		dst = append(dst, f.ID[:]...)
		dst = appendTime(appendTime(dst, f.ValidStart), f.TxStart)
	}
	return dst
}

// decodeFacts decodes the value of a span row: sorted, distinct, valid
// facts.
func decodeFacts(v []byte) ([]Fact, error) {
	r := newReader("span", v)
	facts := make([]Fact, r.count(factWidth))
	for i := range facts {
		facts[i] = Fact{Kind: storage.IndexKind(r.u8()), ID: r.id(), ValidStart: r.time(), TxStart: r.time()}
		if r.err == nil && checkFact(facts[i]) != nil {
			r.fail("fact %d: %v", i, checkFact(facts[i]))
		}
		if r.err == nil && i > 0 && compareFacts(facts[i-1], facts[i]) >= 0 {
			r.fail("facts %d and %d out of order", i-1, i)
		}
	}
	if err := r.end(); err != nil {
		return nil, err
	}
	return facts, nil
}

func checkFact(f Fact) error {
	switch {
	case !f.Kind.Valid():
		return fmt.Errorf("fact %s: kind %d: %w", f.ID, uint8(f.Kind), ErrBadFact)
	case f.ID == uuid.Nil:
		return fmt.Errorf("fact of nil id: %w", ErrBadFact)
	}
	return nil
}

// Record stores that facts were asserted from span sp of tenant s's blob
// sp.Source, which must exist and hold the span. Facts already recorded for
// the span are kept; recording a fact twice changes nothing. The span row
// and one row per fact (the reverse index Passages reads) are written in
// one batch.
func (s *Store) Record(scope storage.TenantScope, sp Span, facts ...Fact) error {
	if len(facts) == 0 {
		return fmt.Errorf("record span %s: no facts: %w", sp, ErrBadFact)
	}
	for _, f := range facts {
		if err := checkFact(f); err != nil {
			return fmt.Errorf("record span %s: %w", sp, err)
		}
	}
	b, err := s.Stat(scope, sp.Source)
	if err != nil {
		return fmt.Errorf("record span %s: %w", sp, err)
	}
	if sp.Start >= sp.End || sp.End > uint64(b.Len) {
		return fmt.Errorf("record span %s of a %d-byte blob: %w", sp, b.Len, ErrBadSpan)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 1; ; attempt++ {
		err := s.record(scope, sp, facts)
		if err == nil {
			return nil
		}
		if !errors.Is(err, storage.ErrConflict) || attempt == maxRecordAttempts {
			return fmt.Errorf("record span %s: %w", sp, err)
		}
	}
}

// maxRecordAttempts bounds the attempts of one Record that other
// processes' writes of the same rows keep overtaking.
const maxRecordAttempts = 100

// record makes one attempt of Record: each row merged with what it holds,
// on the condition that it still holds that, so that a row another process
// rewrote meanwhile (its own Record, an entity erasure) is read again
// rather than overwritten with what it held before.
func (s *Store) record(scope storage.TenantScope, sp Span, facts []Fact) error {
	var batch storage.Batch
	if err := s.merge(&batch, storage.SpanKey(scope, sp.Source, sp.Start, sp.End), facts); err != nil {
		return err
	}
	for id := range factIDs(facts) {
		mine := slices.DeleteFunc(slices.Clone(facts), func(f Fact) bool { return f.ID != id })
		if err := s.merge(&batch, storage.FactSpanKey(scope, id, sp.Source, sp.Start, sp.End), mine); err != nil {
			return err
		}
	}
	return s.apply(&batch, false)
}

// merge adds to b the row k holding its stored facts and facts, sorted and
// distinct, on the condition that k still holds what it was read with.
func (s *Store) merge(b *storage.Batch, k storage.Key, facts []Fact) error {
	v, err := s.engine.Get(k)
	var old []Fact
	switch {
	case err == nil:
		if old, err = decodeFacts(v); err != nil {
			return err
		}
		b.RequireValue(k, v)
	case errors.Is(err, storage.ErrNotFound):
		b.RequireAbsent(k)
	default:
		return err
	}
	all := append(old, facts...)
	slices.SortFunc(all, compareFacts)
	all = slices.CompactFunc(all, func(a, b Fact) bool { return compareFacts(a, b) == 0 })
	b.Put(k, appendFacts(nil, all))
	return nil
}

// factIDs yields the distinct ids of facts, in order of first appearance.
func factIDs(facts []Fact) iter.Seq[uuid.UUID] {
	return func(yield func(uuid.UUID) bool) {
		seen := make(map[uuid.UUID]bool, len(facts))
		for _, f := range facts {
			if !seen[f.ID] {
				seen[f.ID] = true
				if !yield(f.ID) {
					return
				}
			}
		}
	}
}

// Facts returns the passages of blob source of tenant s that overlap
// [start, end), in document order, each with the facts asserted from it:
// the facts that came from that range. Pass 0 and math.MaxUint64 for the
// whole blob. It reads the spans of this source alone.
func (s *Store) Facts(scope storage.TenantScope, source uuid.UUID, start, end uint64) ([]Provenance, error) {
	return spansOverlapping(s.engine, scope, source, []storage.BlobRange{{Start: start, End: end}})
}

// spansOverlapping returns the passages of blob source of tenant s in r
// that overlap one of the merged ranges rs, in document order.
func spansOverlapping(r storage.Reader, scope storage.TenantScope, source uuid.UUID, rs []storage.BlobRange) ([]Provenance, error) {
	var out []Provenance
	if len(rs) == 0 {
		return nil, nil
	}
	last := rs[len(rs)-1].End
	for kv, err := range r.Scan(storage.SourceSpans(scope, source)) {
		if err != nil {
			return nil, fmt.Errorf("facts of blob %s: %w", source, err)
		}
		p, byFact, err := decodeSpanRow(kv)
		if err != nil {
			return nil, fmt.Errorf("facts of blob %s: %w", source, err)
		}
		if byFact {
			break // a fact's row, whose id is this blob's id: every span came before
		}
		if p.Span.Start >= last {
			break // spans are in document order: none later overlaps
		}
		if i := firstFrom(rs, p.Span.Start); i < len(rs) && p.Span.overlaps(rs[i].Start, rs[i].End) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Passages returns the passages fact id (a node or edge logical id) of
// tenant s was asserted from, by source and in document order, each with
// the versions of that fact asserted from it. It reads that fact's rows
// alone.
func (s *Store) Passages(scope storage.TenantScope, id uuid.UUID) ([]Provenance, error) {
	var out []Provenance
	for kv, err := range s.engine.Scan(storage.FactSpans(scope, id)) {
		if err != nil {
			return nil, fmt.Errorf("passages of %s: %w", id, err)
		}
		p, _, err := decodeSpanRow(kv)
		if err != nil {
			return nil, fmt.Errorf("passages of %s: %w", id, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// decodeSpanRow decodes a row of the spans family, and reports whether it
// is a fact's row, whose facts are all of that one fact.
func decodeSpanRow(kv storage.KV) (Provenance, bool, error) {
	k, err := storage.DecodeSpan(kv.Key)
	if err != nil {
		return Provenance{}, false, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	facts, err := decodeFacts(kv.Value)
	if err != nil {
		return Provenance{}, false, fmt.Errorf("%s: %w", k, err)
	}
	p := Provenance{Span: Span{Source: k.Source, Start: k.Start, End: k.End}, Facts: facts}
	if k.ByFact {
		for _, f := range facts {
			if f.ID != k.Fact {
				return Provenance{}, false, fmt.Errorf("%s holds fact %s: %w", k, f.ID, ErrCorrupt)
			}
		}
	}
	return p, k.ByFact, nil
}
