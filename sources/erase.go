package sources

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// AddNodeErasure adds to b the deletion of every span row of fact id in
// scope (a node, or an edge erased on its own: span rows are keyed by fact
// id whatever its kind), and of the edges erased with it
// (temporal.NodeErasure.Edges: a span may have produced edge versions
// too), in both shapes: each row of
// the fact shape (storage.FactSpans) and, for each span those rows name,
// the span's row under its source (storage.SpanKey), rewritten without
// the erased facts, or deleted when no fact is left. It returns the number
// of rows whose deletion it added.
//
// This is physical erasure: the caller writes b durably
// (telha.dev/lifecycle records it in the erasure ledger and compacts).
// Nothing is written here. It reads the rows through r, not through a
// Store, so it does not serialise with Store.Record; instead each span row
// it rewrites is required to hold still what it read, as Record requires
// of the rows it merges: of an erasure and a Record of one span, in any
// processes, the one that lands second is refused (the erasure with
// storage.ErrConflict, to run again) or made again (Record), never
// written over what the other wrote.
func AddNodeErasure(r storage.Reader, b *storage.Batch, scope storage.TenantScope, id uuid.UUID, edges ...uuid.UUID) (int, error) {
	if scope.IsZero() {
		return 0, fmt.Errorf("erase spans of %s: %w", id, storage.ErrNilScope)
	}
	erased := make(map[uuid.UUID]bool, 1+len(edges))
	var spans []Span
	rows := 0
	for _, fact := range append([]uuid.UUID{id}, edges...) {
		if erased[fact] {
			continue
		}
		erased[fact] = true
		for kv, err := range r.Scan(storage.FactSpans(scope, fact)) {
			if err != nil {
				return 0, fmt.Errorf("erase spans of %s: %w", fact, err)
			}
			p, byFact, err := decodeSpanRow(kv)
			if err != nil {
				return 0, fmt.Errorf("erase spans of %s: %w", fact, err)
			}
			if !byFact {
				return 0, fmt.Errorf("erase spans of %s: %s is not a row of the fact: %w", fact, p.Span, ErrCorrupt)
			}
			b.Delete(storage.FactSpanKey(scope, fact, p.Span.Source, p.Span.Start, p.Span.End))
			rows++
			spans = append(spans, p.Span)
		}
	}
	slices.SortFunc(spans, spanOrder)
	for _, sp := range slices.Compact(spans) {
		deleted, err := addSpanRewrite(r, b, scope, sp, erased)
		if err != nil {
			return 0, fmt.Errorf("erase spans of %s: %w", id, err)
		}
		if deleted {
			rows++
		}
	}
	return rows, b.Err()
}

// addSpanRewrite adds to b the row of span sp under its source without
// the facts of the erased ids: rewritten, or deleted (deleted is true)
// when none of its facts is left.
func addSpanRewrite(r storage.Reader, b *storage.Batch, scope storage.TenantScope, sp Span, erased map[uuid.UUID]bool) (deleted bool, err error) {
	k := storage.SpanKey(scope, sp.Source, sp.Start, sp.End)
	v, err := r.Get(k)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("span %s: %w", sp, err)
	}
	facts, err := decodeFacts(v)
	if err != nil {
		return false, fmt.Errorf("span %s: %w", sp, err)
	}
	b.RequireValue(k, v)
	kept := slices.DeleteFunc(facts, func(f Fact) bool { return erased[f.ID] })
	if len(kept) == 0 {
		b.Delete(k)
		return true, nil
	}
	b.Put(k, appendFacts(nil, kept))
	return false, nil
}

// spanOrder orders spans by source, then start and end.
func spanOrder(a, b Span) int {
	return cmp.Or(slices.Compare(a.Source[:], b.Source[:]), cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
}
