package sources_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/sources"
)

// entry returns a ledger entry id for the tests, distinct per n.
func entry(n int) uuid.UUID { return uuid.UUID{0x1e, 0xd9, 15: byte(n)} }

// commit adds plan p under ledger entry e to a batch and writes it: the
// tests stand in for the tenant lifecycle, which commits it with the
// ledger entry.
func commit(t testing.TB, eng storage.Engine, p *sources.RedactionPlan, e uuid.UUID) {
	t.Helper()
	var b storage.Batch
	if err := p.AddTo(&b, e); err != nil {
		t.Fatalf("add plan of blob %s: %v", p.Blob(), err)
	}
	if err := eng.Write(&b); err != nil {
		t.Fatalf("commit plan of blob %s: %v", p.Blob(), err)
	}
}

// mustRedact plans and commits a redaction of ranges.
func mustRedact(t testing.TB, s *sources.Store, eng storage.Engine, scope storage.TenantScope, id uuid.UUID, e uuid.UUID, ranges ...sources.Range) *sources.RedactionPlan {
	t.Helper()
	p, err := s.PlanRedaction(scope, id, ranges)
	if err != nil {
		t.Fatalf("plan redaction of %v: %v", ranges, err)
	}
	commit(t, eng, p, e)
	return p
}

// without is the brute-force model of a redacted text: doc less every
// byte of every range.
func without(doc []byte, ranges ...sources.Range) []byte {
	gone := make([]bool, len(doc))
	for _, r := range ranges {
		for i := r.Start; i < r.End && i < uint64(len(doc)); i++ {
			gone[i] = true
		}
	}
	var out []byte
	for i, c := range doc {
		if !gone[i] {
			out = append(out, c)
		}
	}
	return out
}

// checkText holds a blob's reads (Open through Read and WriteTo, Stat,
// ReadRange of every window) to the model's text.
func checkText(t testing.TB, s *sources.Store, scope storage.TenantScope, id uuid.UUID, doc []byte, ranges ...sources.Range) {
	t.Helper()
	want := without(doc, ranges...)
	if got := mustRead(t, s, scope, id); !bytes.Equal(got, want) {
		t.Fatalf("blob %s reads %d bytes, want %d, equal prefix %d", id, len(got), len(want), commonPrefix(got, want))
	}
	b, err := s.Stat(scope, id)
	if err != nil || b.Len != int64(len(doc)) || b.TextLen() != int64(len(want)) {
		t.Fatalf("stat %+v, %v; want length %d, text length %d", b, err, len(doc), len(want))
	}
	for _, w := range [][2]int64{{0, int64(len(doc))}, {0, 1}, {int64(len(doc)) / 3, int64(len(doc)) / 2}, {int64(len(doc)) - 1, int64(len(doc))}} {
		if w[0] < 0 || w[1] > int64(len(doc)) || w[0] > w[1] {
			continue
		}
		got, err := s.ReadRange(scope, id, w[0], w[1])
		if wantRange := without(doc[w[0]:w[1]], shift(ranges, w[0])...); err != nil || !bytes.Equal(got, wantRange) {
			t.Fatalf("read range %v: %d bytes, %v; want %d", w, len(got), err, len(wantRange))
		}
	}
}

// shift moves ranges left by off, for the model of a window from off.
func shift(ranges []sources.Range, off int64) []sources.Range {
	var out []sources.Range
	for _, r := range ranges {
		start, end := max(int64(r.Start)-off, 0), int64(r.End)-off
		if end > start {
			out = append(out, sources.Range{Start: uint64(start), End: uint64(end)})
		}
	}
	return out
}

func TestRedactOverlappingAndAdjacentRanges(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := []byte("0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ")
		b := mustIngest(t, s, scope, doc)
		ranges := []sources.Range{{10, 20}, {15, 30}, {30, 34}, {40, 41}, {40, 41}}
		p := mustRedact(t, s, env.Engine, scope, b.ID, entry(1), ranges...)
		if want := []sources.Range{{10, 34}, {40, 41}}; !slices.Equal(p.Ranges(), want) || p.Deleted() || p.Blob() != b.ID {
			t.Fatalf("plan ranges %v, deleted %v; want %v", p.Ranges(), p.Deleted(), want)
		}
		checkText(t, s, scope, b.ID, doc, ranges...)
		stat, _ := s.Stat(scope, b.ID)
		if !slices.Equal(stat.Redacted, p.Ranges()) || stat.Hash != b.Hash || stat.TextHash == b.Hash {
			t.Fatalf("stat after redaction: %+v", stat)
		}
		// A range touching an earlier one merges with it.
		mustRedact(t, s, env.Engine, scope, b.ID, entry(2), sources.Range{Start: 34, End: 36})
		stat, _ = s.Stat(scope, b.ID)
		if want := []sources.Range{{10, 36}, {40, 41}}; !slices.Equal(stat.Redacted, want) {
			t.Fatalf("redacted %v, want %v", stat.Redacted, want)
		}
		checkText(t, s, scope, b.ID, doc, append(ranges, sources.Range{Start: 34, End: 36})...)
		// Every text the blob held before an operation is blocklisted: the
		// original and the text after the first redaction.
		for _, blocked := range [][]byte{doc, without(doc, ranges...)} {
			if _, _, err := s.IngestBytes(scope, blocked); !errors.Is(err, sources.ErrBlocklisted) {
				t.Fatalf("ingest of a blocklisted text: %v", err)
			}
		}
		// The current text is not: it is stored, under its own id.
		current := without(doc, append(ranges, sources.Range{Start: 34, End: 36})...)
		if _, created, err := s.IngestBytes(scope, current); err != nil || !created {
			t.Fatalf("ingest of the current text: created %v, %v", created, err)
		}
		// A restart keeps all of it.
		s = openStore(env.Reopen(t))
		checkText(t, s, scope, b.ID, doc, append(ranges, sources.Range{Start: 34, End: 36})...)
		if _, _, err := s.IngestBytes(scope, doc); !errors.Is(err, sources.ErrBlocklisted) {
			t.Fatalf("%s: ingest of the original after a restart: %v", env.Kind, err)
		}
	})
}
