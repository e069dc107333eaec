package lifecycle

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/core/storage/system/tenants"
	"telha.dev/sources"
)

// A redaction takes byte ranges out of one blob of a tenant (Redact), or
// the whole blob (DeleteSource), for good. The operation is planned by
// telha.dev/sources from one snapshot (the chunks rewritten without the
// ranges, or deleted; the blob's redaction record; the blocklist row of
// the text as it was), and the plan's rows and the ledger entry are one
// durable batch (ledger.Commit): a redaction is never done unrecorded,
// nor recorded undone. Then the blob's rows are compacted so that the
// old bytes leave the engine's files, the facts whose spans overlap the
// ranges are erased entity by entity if asked, and the result is checked
// and recorded as verified in the ledger entry.
//
// Interrupted at any step, by an error or a crash, a redaction is either
// absent (nothing was committed: the blob is as it was) or recorded and
// unverified, and Resume finishes it: it compacts the blob's rows again,
// erases the overlapping facts if the entry asked for it, checks, and
// records the verification.

// RedactOptions tune a redaction or a deletion.
type RedactOptions struct {
	// EraseFacts erases, through EraseEntity, every fact whose spans in
	// the blob overlap the redacted ranges (any span of the blob, for a
	// deletion): each node, with its incident edges and their provenance,
	// then each edge that no such node took with it, alone (its endpoints
	// and their other edges stay).
	EraseFacts bool
	// Progress, if set, receives one line per step.
	Progress func(format string, args ...any)
}

func (o RedactOptions) erase() EraseOptions { return EraseOptions{Progress: o.Progress} }

// Redacted is what a redaction or a deletion did.
type Redacted struct {
	// Entry is the ledger entry, verified. Entry.Entity is the blob;
	// Entry.Redaction the ranges, whether the blob was deleted, and the
	// keyed digest of the text blocklisted.
	Entry ledger.Entry
	// Overlapping is every span of the blob that overlapped the redacted
	// ranges (every span, for a deletion), with the facts asserted from
	// it: the facts that came from what was taken out.
	Overlapping []sources.Provenance
	// Erased are the entity erasures of the overlapping nodes, with
	// RedactOptions.EraseFacts.
	Erased []Erasure
	// Edges are the entity erasures of the overlapping edges, with
	// RedactOptions.EraseFacts: each edge that no erasure in Erased took
	// with one of its endpoints (an edge erased with a node is not erased
	// twice).
	Edges []Erasure
}

// Redact takes the ranges (in the blob's original byte coordinates) out
// of blob in scope: see the comment at the head of this file. Bad ranges
// are sources.ErrBadRange, a blob the tenant lacks sources.ErrNoBlob, a
// deleted one sources.ErrDeleted; nothing is changed then. An engine that
// cannot compact is refused (storage.ErrCompactUnsupported) before
// anything is written.
func Redact(e storage.Engine, scope storage.TenantScope, blob uuid.UUID, ranges []storage.BlobRange, opts RedactOptions) (Redacted, error) {
	return redact(e, scope, blob, opts, fmt.Sprintf("redact blob %s", blob), func(s *sources.Store) (*sources.RedactionPlan, error) {
		return s.PlanRedaction(scope, blob, ranges)
	})
}

// DeleteSource deletes blob from scope: every chunk, its text blocklisted,
// its id kept as an address only (reading it is sources.ErrDeleted). It
// is a redaction of the whole blob, and goes as Redact goes.
func DeleteSource(e storage.Engine, scope storage.TenantScope, blob uuid.UUID, opts RedactOptions) (Redacted, error) {
	return redact(e, scope, blob, opts, fmt.Sprintf("delete blob %s", blob), func(s *sources.Store) (*sources.RedactionPlan, error) {
		return s.PlanDelete(scope, blob)
	})
}

// redacting serialises the redactions of this process.
var redacting sync.Mutex

// redact plans with plan, commits the plan with its ledger entry, and
// finishes the redaction.
func redact(e storage.Engine, scope storage.TenantScope, blob uuid.UUID, opts RedactOptions, what string,
	plan func(*sources.Store) (*sources.RedactionPlan, error)) (Redacted, error) {
	if scope.IsZero() {
		return Redacted{}, fmt.Errorf("%s: %w", what, storage.ErrNilScope)
	}
	if _, ok := e.(storage.Compactor); !ok {
		return Redacted{}, fmt.Errorf("%s: %w", what, storage.ErrCompactUnsupported)
	}
	// A plan is made from one snapshot and refused by AddTo if the blob
	// changed since; redactions in this process are serialised from plan
	// to commit, so that two cannot both pass that check, and the commit is
	// conditional on the blob's redaction record as planned, so that of
	// two processes' redactions of one blob only one lands (the other is
	// sources.ErrBadPlan, with nothing applied).
	redacting.Lock()
	defer redacting.Unlock()
	p, err := plan(sources.Open(e, sources.Options{}))
	if errors.Is(err, storage.ErrStale) {
		// Another process's redaction of the blob compacted the history
		// the plan was being read from: the blob changed while planning.
		return Redacted{}, fmt.Errorf("%s of %s: changed while it was planned: %w: %w", what, scope, sources.ErrBadPlan, err)
	}
	if err != nil {
		return Redacted{}, fmt.Errorf("%s of %s: %w", what, scope, err)
	}
	en, err := ledger.NewEntry(ledger.KindRedaction, scope, blob)
	if err != nil {
		return Redacted{}, fmt.Errorf("%s: %w", what, err)
	}
	en.Redaction.Ranges = p.Ranges()
	en.Redaction.Deleted, en.Redaction.EraseFacts, en.Redaction.KeyedDigest = p.Deleted(), opts.EraseFacts, p.KeyedDigest()
	var b storage.Batch
	if err := p.AddTo(&b, en.ID); err != nil {
		return Redacted{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := tenants.RequireWritable(e, &b, scope); err != nil {
		return Redacted{}, fmt.Errorf("%s: %w", what, err)
	}
	opts.erase().progress("%s of %s: %d ranges, %d spans overlap", what, scope, len(en.Redaction.Ranges), len(p.Overlapping()))
	if err := tenants.Refused(e, scope, ledger.Commit(e, &b, &en)); errors.Is(err, storage.ErrConflict) {
		return Redacted{}, fmt.Errorf("%s of %s: changed since it was planned: %w: %w", what, scope, sources.ErrBadPlan, err)
	} else if err != nil {
		return Redacted{}, fmt.Errorf("%s: %w", what, err)
	}
	if err := done(StepDelete); err != nil {
		return Redacted{}, fmt.Errorf("%s: %w", what, err)
	}
	out, err := finishRedaction(e, en, opts.erase())
	out.Overlapping = p.Overlapping()
	return out, err
}

// redactedRanges are the ranges of the entry's blob, in the original
// coordinates; the whole blob for a deletion.
func redactedRanges(en ledger.Entry) []storage.BlobRange {
	if en.Redaction.Deleted {
		return []storage.BlobRange{{Start: 0, End: math.MaxUint64}}
	}
	return en.Redaction.Ranges
}

// finishRedaction runs the steps of a redaction after its commit:
// compaction of the blob's rows, the erasure of the overlapping facts if
// the entry asks for it, the check, and its record.
func finishRedaction(e storage.Engine, en ledger.Entry, opts EraseOptions) (Redacted, error) {
	what := fmt.Sprintf("redact blob %s of %s", en.Entity, en.Scope)
	if en.Redaction.Deleted {
		what = fmt.Sprintf("delete blob %s of %s", en.Entity, en.Scope)
	}
	out := Redacted{Entry: en}
	s := sources.Open(e, sources.Options{})
	eraseFacts := func() error {
		if !en.Redaction.EraseFacts {
			return nil
		}
		var err error
		out.Erased, out.Edges, err = eraseOverlapping(e, s, en, opts)
		return err
	}
	tail := finishing{
		what: what, target: "the blob's rows", ranges: []storage.ScanRange{storage.SourceRows(en.Scope, en.Entity)},
		then: eraseFacts, step: StepEraseFacts,
		verify: func() error { return checkRedacted(s, en) }, proof: "verified",
	}
	err := tail.run(e, &en, opts)
	out.Entry = en
	return out, err
}

// eraseOverlapping erases every node whose spans in the entry's blob
// overlap its ranges, then every overlapping edge that is left (an edge
// goes with either of its endpoints, and its spans with it), and returns
// the erasures of both. A fact erased by an earlier, interrupted run no
// longer has spans, so running it again erases only what is left.
func eraseOverlapping(e storage.Engine, s *sources.Store, en ledger.Entry, opts EraseOptions) (nodes, edges []Erasure, err error) {
	for _, kind := range []storage.IndexKind{storage.IndexNode, storage.IndexEdge} {
		ids, err := overlappingFacts(s, en, kind)
		if err != nil {
			return nodes, edges, err
		}
		for _, id := range ids {
			er, err := EraseEntity(e, en.Scope, id, opts)
			switch {
			case errors.Is(err, ErrNotFound):
				continue
			case errors.Is(err, ErrNotWritable) && leaving(e, en.Scope):
				// The tenant's erasure began: every fact goes with it,
				// and Resume finishes the erasure.
				return nodes, edges, nil
			case err != nil:
				return nodes, edges, err
			case kind == storage.IndexNode:
				nodes = append(nodes, er)
			default:
				edges = append(edges, er)
			}
		}
	}
	return nodes, edges, nil
}

// overlappingFacts returns the distinct ids of the facts of kind asserted
// from spans of the entry's blob that overlap its ranges.
func overlappingFacts(s *sources.Store, en ledger.Entry, kind storage.IndexKind) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	seen := make(map[uuid.UUID]bool)
	for _, r := range redactedRanges(en) {
		ps, err := s.Facts(en.Scope, en.Entity, r.Start, r.End)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			for _, f := range p.Facts {
				if f.Kind == kind && !seen[f.ID] {
					seen[f.ID] = true
					ids = append(ids, f.ID)
				}
			}
		}
	}
	return ids, nil
}

// checkRedacted checks what the entry says of its blob: deleted, or its
// ranges among the blob's redacted ranges, and the current text whole
// (the reader checks its hash). A blob the store lacks (a restored store
// older than its ingest) has nothing to check; the blocklist row is
// written in the entry's own batch.
func checkRedacted(s *sources.Store, en ledger.Entry) error {
	b, err := s.Stat(en.Scope, en.Entity)
	switch {
	case errors.Is(err, sources.ErrNoBlob), errors.Is(err, sources.ErrDeleted):
		return nil
	case err != nil:
		return err
	case en.Redaction.Deleted:
		return fmt.Errorf("the deleted blob is still readable: %w", ErrNotErased)
	}
	for _, r := range en.Redaction.Ranges {
		if !covered(b.Redacted, r) {
			return fmt.Errorf("%s is not redacted: %w", r, ErrNotErased)
		}
	}
	rd, err := s.Open(en.Scope, en.Entity)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, rd)
	return errors.Join(err, rd.Close())
}

// covered reports whether r lies inside one of the merged ranges rs.
func covered(rs []storage.BlobRange, r storage.BlobRange) bool {
	return slices.ContainsFunc(rs, func(c storage.BlobRange) bool { return c.Start <= r.Start && r.End <= c.End })
}
