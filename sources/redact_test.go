package sources_test

import (
	"bytes"
	"errors"
	"math"
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
func commit(t interface {
	Helper()
	Fatalf(format string, args ...any)
}, eng storage.Engine, p *sources.RedactionPlan, e uuid.UUID) {
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
func mustRedact(t testing.TB, s *sources.Store, eng storage.Engine, scope storage.TenantScope, id uuid.UUID, e uuid.UUID, ranges ...storage.BlobRange) *sources.RedactionPlan {
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
func without(doc []byte, ranges ...storage.BlobRange) []byte {
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
func checkText(t testing.TB, s *sources.Store, scope storage.TenantScope, id uuid.UUID, doc []byte, ranges ...storage.BlobRange) {
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
func shift(ranges []storage.BlobRange, off int64) []storage.BlobRange {
	var out []storage.BlobRange
	for _, r := range ranges {
		start, end := max(int64(r.Start)-off, 0), int64(r.End)-off
		if end > start {
			out = append(out, storage.BlobRange{Start: uint64(start), End: uint64(end)})
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
		ranges := []storage.BlobRange{{Start: 10, End: 20}, {Start: 15, End: 30}, {Start: 30, End: 34}, {Start: 40, End: 41}, {Start: 40, End: 41}}
		p := mustRedact(t, s, env.Engine, scope, b.ID, entry(1), ranges...)
		if want := []storage.BlobRange{{Start: 10, End: 34}, {Start: 40, End: 41}}; !slices.Equal(p.Ranges(), want) || p.Deleted() || p.Blob() != b.ID {
			t.Fatalf("plan ranges %v, deleted %v; want %v", p.Ranges(), p.Deleted(), want)
		}
		checkText(t, s, scope, b.ID, doc, ranges...)
		stat, _ := s.Stat(scope, b.ID)
		if !slices.Equal(stat.Redacted, p.Ranges()) || stat.Hash != b.Hash || stat.TextHash == b.Hash {
			t.Fatalf("stat after redaction: %+v", stat)
		}
		// A range touching an earlier one merges with it.
		mustRedact(t, s, env.Engine, scope, b.ID, entry(2), storage.BlobRange{Start: 34, End: 36})
		stat, _ = s.Stat(scope, b.ID)
		if want := []storage.BlobRange{{Start: 10, End: 36}, {Start: 40, End: 41}}; !slices.Equal(stat.Redacted, want) {
			t.Fatalf("redacted %v, want %v", stat.Redacted, want)
		}
		checkText(t, s, scope, b.ID, doc, append(ranges, storage.BlobRange{Start: 34, End: 36})...)
		// Every text the blob held before an operation is blocklisted: the
		// original and the text after the first redaction.
		for _, blocked := range [][]byte{doc, without(doc, ranges...)} {
			if _, _, err := s.IngestBytes(scope, blocked); !errors.Is(err, sources.ErrBlocklisted) {
				t.Fatalf("ingest of a blocklisted text: %v", err)
			}
		}
		// The current text is not: it is stored, under its own id.
		current := without(doc, append(ranges, storage.BlobRange{Start: 34, End: 36})...)
		if _, created, err := s.IngestBytes(scope, current); err != nil || !created {
			t.Fatalf("ingest of the current text: created %v, %v", created, err)
		}
		// A restart keeps all of it.
		s = openStore(env.Reopen(t))
		checkText(t, s, scope, b.ID, doc, append(ranges, storage.BlobRange{Start: 34, End: 36})...)
		if _, _, err := s.IngestBytes(scope, doc); !errors.Is(err, sources.ErrBlocklisted) {
			t.Fatalf("%s: ingest of the original after a restart: %v", env.Kind, err)
		}
	})
}

// runeStart returns the first character boundary of doc at or after p.
func runeStart(doc []byte, p int) uint64 {
	for p < len(doc) && doc[p]&0xc0 == 0x80 {
		p++
	}
	return uint64(p)
}

// A range across a chunk boundary and one covering whole chunks rewrite
// the chunks they overlap and no other; a chunk may shrink to nothing.
func TestRedactChunks(t *testing.T) {
	const cs = sources.ChunkSize
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := text(5*cs+77, 11)
		b := mustIngest(t, s, scope, doc)
		before := rowsOf(t, env.Engine, scope)
		ranges := []storage.BlobRange{
			{Start: runeStart(doc, cs-9), End: runeStart(doc, cs+9)}, // across the boundary of chunks 0 and 1
			{Start: 3 * cs, End: 4 * cs},                             // chunk 3, whole: windows start on boundaries here?
		}
		if ranges[1].Start != runeStart(doc, 3*cs) || ranges[1].End != runeStart(doc, 4*cs) {
			ranges[1] = storage.BlobRange{Start: runeStart(doc, 3*cs), End: runeStart(doc, 4*cs)}
		}
		p := mustRedact(t, s, env.Engine, scope, b.ID, entry(1), ranges...)
		checkText(t, s, scope, b.ID, doc, ranges...)
		if got := storage.SourceRows(scope, p.Blob()); !got.Contains(storage.SourceChunkKey(scope, b.ID, 5)) ||
			!got.Contains(storage.RedactionRecordKey(scope, b.ID)) || got.Contains(storage.SourceChunkKey(scope, uuid.Max, 0)) {
			t.Fatalf("compacted %v: want the blob's rows of the sources family", got)
		}
		after := rowsOf(t, env.Engine, scope)
		changed := map[uint64]bool{}
		for _, kv := range after {
			k, err := storage.DecodeSource(kv.Key)
			if err != nil {
				t.Fatal(err)
			}
			if k.Redaction {
				continue
			}
			old := slices.IndexFunc(before, func(o storage.KV) bool { return bytes.Equal(o.Key, kv.Key) })
			if old < 0 {
				t.Fatalf("a new chunk row %s", k)
			}
			if !bytes.Equal(before[old].Value, kv.Value) {
				changed[k.Chunk] = true
			}
		}
		// Chunk 4 holds the end of the second range only if it does not
		// start on a chunk boundary.
		want := map[uint64]bool{0: true, 1: true, 3: true, 4: ranges[1].End > 4*cs}
		for i := range uint64(6) {
			if changed[i] != want[i] {
				t.Errorf("chunk %d rewritten: %v, want %v", i, changed[i], want[i])
			}
		}
		// Rows: the chunks, the record, the blocklist row.
		if len(after) != len(before)+2 {
			t.Fatalf("%d rows after, %d before: want the record and the blocklist row more", len(after), len(before))
		}
	})
}

// A multi-megabyte document, redacted in many places at once and then
// again, reads back as the model says, before and after a restart.
func TestRedactMultiMegabyte(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := text(3<<20+4321, 12)
		b := mustIngest(t, s, scope, doc)
		var first []storage.BlobRange
		for i := range 12 {
			start := runeStart(doc, i*(len(doc)/12)+i*977)
			first = append(first, storage.BlobRange{Start: start, End: runeStart(doc, int(start)+1+i*7919)})
		}
		mustRedact(t, s, env.Engine, scope, b.ID, entry(1), first...)
		second := []storage.BlobRange{{Start: 0, End: runeStart(doc, 100)}, {Start: runeStart(doc, len(doc)-200_000), End: uint64(len(doc))}}
		mustRedact(t, s, env.Engine, scope, b.ID, entry(2), second...)
		all := append(first, second...)
		checkText(t, s, scope, b.ID, doc, all...)
		s = openStore(env.Reopen(t))
		checkText(t, s, scope, b.ID, doc, all...)
	})
}

// Redactions are in original coordinates however many came before; each
// blocklists the text before it, and the deletion the last one.
func TestRepeatedRedactionsThenDelete(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := text(2*sources.ChunkSize+500, 13)
		b := mustIngest(t, s, scope, doc)
		steps := [][]storage.BlobRange{
			{{Start: runeStart(doc, 100), End: runeStart(doc, 200)}},
			{{Start: runeStart(doc, 150), End: runeStart(doc, 300)}},                    // overlaps the first
			{{Start: runeStart(doc, 50), End: runeStart(doc, 120)}, {Start: 0, End: 1}}, // reaches into it from the left; the first byte
			{{Start: runeStart(doc, sources.ChunkSize), End: uint64(len(doc))}},         // the end
		}
		var done []storage.BlobRange
		texts := [][]byte{doc}
		for i, step := range steps {
			mustRedact(t, s, env.Engine, scope, b.ID, entry(i+1), step...)
			done = append(done, step...)
			checkText(t, s, scope, b.ID, doc, done...)
			texts = append(texts, without(doc, done...))
		}
		p, err := s.PlanDelete(scope, b.ID)
		if err != nil || !p.Deleted() || p.Ranges() != nil {
			t.Fatalf("plan delete: %+v, %v", p, err)
		}
		commit(t, env.Engine, p, entry(99))
		for i, blocked := range texts {
			if _, _, err := s.IngestBytes(scope, blocked); !errors.Is(err, sources.ErrBlocklisted) {
				t.Fatalf("ingest of text %d (%d bytes): %v, want ErrBlocklisted", i, len(blocked), err)
			}
		}
		checkDeleted(t, s, env.Engine, scope, b.ID)
	})
}

// checkDeleted holds every read and operation on a deleted blob to
// ErrDeleted, and its rows to the record and none of its chunks.
func checkDeleted(t testing.TB, s *sources.Store, e storage.Engine, scope storage.TenantScope, id uuid.UUID) {
	t.Helper()
	_, errOpen := s.Open(scope, id)
	_, errStat := s.Stat(scope, id)
	_, errRange := s.ReadRange(scope, id, 0, 0)
	_, errRedact := s.PlanRedaction(scope, id, []storage.BlobRange{{Start: 0, End: 1}})
	_, errDelete := s.PlanDelete(scope, id)
	errRecord := s.Record(scope, sources.Span{Source: id, Start: 0, End: 1}, node(1))
	for i, err := range []error{errOpen, errStat, errRange, errRedact, errDelete, errRecord} {
		if !errors.Is(err, sources.ErrDeleted) {
			t.Fatalf("operation %d on a deleted blob: %v, want ErrDeleted", i, err)
		}
	}
	for kv, err := range e.Scan(storage.SourceRows(scope, id)) {
		if err != nil {
			t.Fatal(err)
		}
		if k, _ := storage.DecodeSource(kv.Key); !k.Redaction {
			t.Fatalf("a deleted blob keeps row %s", k)
		}
	}
}

func TestDelete(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		for i, doc := range [][]byte{{}, []byte("x"), text(3*sources.ChunkSize+1, 14)} {
			b := mustIngest(t, s, scope, doc)
			spans := 0
			if len(doc) > 0 { // the empty document takes no span
				mustRecord(t, s, scope, sources.Span{Source: b.ID, Start: 0, End: uint64(len(doc))}, node(1))
				spans = 1
			}
			p, err := s.PlanDelete(scope, b.ID)
			if err != nil || len(p.Overlapping()) != spans {
				t.Fatalf("doc %d: plan delete %v, overlapping %v", i, err, p.Overlapping())
			}
			commit(t, env.Engine, p, entry(i+1))
			checkDeleted(t, s, env.Engine, scope, b.ID)
			if _, _, err := s.IngestBytes(scope, doc); !errors.Is(err, sources.ErrBlocklisted) {
				t.Fatalf("doc %d: ingest after delete: %v", i, err)
			}
		}
		s = openStore(env.Reopen(t))
		if _, _, err := s.IngestBytes(scope, []byte("x")); !errors.Is(err, sources.ErrBlocklisted) {
			t.Fatalf("ingest after delete and restart: %v", err)
		}
	})
}

// Bad ranges are ErrBadRange, whatever their values, and write nothing.
func TestRedactRefusesBadRanges(t *testing.T) {
	doc := []byte("ab🦫cdé") // 🦫 at [2, 6), é at [8, 10)
	n := uint64(len(doc))
	tests := []struct {
		name   string
		ranges []storage.BlobRange
	}{
		{"no ranges", nil},
		{"an empty list", []storage.BlobRange{}},
		{"an empty range", []storage.BlobRange{{Start: 3, End: 3}}},
		{"an empty range at 0", []storage.BlobRange{{Start: 0, End: 0}}},
		{"an empty range at the end", []storage.BlobRange{{Start: n, End: n}}},
		{"an inverted range", []storage.BlobRange{{Start: 5, End: 1}}},
		{"past the end", []storage.BlobRange{{Start: 0, End: n + 1}}},
		{"wholly past the end", []storage.BlobRange{{Start: n, End: n + 1}}},
		{"near 2^64", []storage.BlobRange{{Start: math.MaxUint64 - 1, End: math.MaxUint64}}},
		{"to 2^64", []storage.BlobRange{{Start: 0, End: math.MaxUint64}}},
		{"inverted at 2^64", []storage.BlobRange{{Start: math.MaxUint64, End: 0}}},
		{"a start inside a character", []storage.BlobRange{{Start: 3, End: 6}}},
		{"an end inside a character", []storage.BlobRange{{Start: 0, End: 4}}},
		{"an end inside the last character", []storage.BlobRange{{Start: 0, End: n - 1}}},
		{"a good range and a bad one", []storage.BlobRange{{Start: 0, End: 2}, {Start: 7, End: 9}}},
		{"a good range and an empty one", []storage.BlobRange{{Start: 0, End: 2}, {Start: 4, End: 4}}},
	}
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		b := mustIngest(t, s, scope, doc)
		rows := rowsOf(t, env.Engine, scope)
		for _, tt := range tests {
			if p, err := s.PlanRedaction(scope, b.ID, tt.ranges); !errors.Is(err, sources.ErrBadRange) || p != nil {
				t.Errorf("%s: plan %v, %v; want ErrBadRange", tt.name, p, err)
			}
		}
		if after := rowsOf(t, env.Engine, scope); !equalRows(rows, after) {
			t.Fatal("a refused redaction wrote rows")
		}
		// The edges themselves are fine: from 0, to the end, whole characters.
		mustRedact(t, s, env.Engine, scope, b.ID, entry(1), storage.BlobRange{Start: 0, End: 1}, storage.BlobRange{Start: 2, End: 6}, storage.BlobRange{Start: 8, End: n})
		checkText(t, s, scope, b.ID, doc, storage.BlobRange{Start: 0, End: 1}, storage.BlobRange{Start: 2, End: 6}, storage.BlobRange{Start: 8, End: n})
		// Redacting what is gone already is refused; an end inside a
		// redacted character is absorbed by the merge.
		if _, err := s.PlanRedaction(scope, b.ID, []storage.BlobRange{{Start: 3, End: 5}}); !errors.Is(err, sources.ErrBadRange) {
			t.Errorf("a range redacted already: %v", err)
		}
		mustRedact(t, s, env.Engine, scope, b.ID, entry(2), storage.BlobRange{Start: 3, End: 7})
		checkText(t, s, scope, b.ID, doc, storage.BlobRange{Start: 0, End: 1}, storage.BlobRange{Start: 2, End: 7}, storage.BlobRange{Start: 8, End: n})
		// Unknown blobs.
		if _, err := s.PlanRedaction(scope, uuid.New(), []storage.BlobRange{{Start: 0, End: 1}}); !errors.Is(err, sources.ErrNoBlob) {
			t.Errorf("redaction of an unknown blob: %v", err)
		}
		if _, err := s.PlanDelete(scope, uuid.New()); !errors.Is(err, sources.ErrNoBlob) {
			t.Errorf("deletion of an unknown blob: %v", err)
		}
	})
}

// Overlapping reports the spans that share a byte with the new ranges,
// with their facts, and no other.
func TestRedactionOverlapping(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := []byte("Alice met Bob in Lisbon. Bob paid. Carol left.")
		b := mustIngest(t, s, scope, doc)
		mustRecord(t, s, scope, sources.Span{Source: b.ID, Start: 0, End: 24}, node(1), edge(1)) // the first sentence
		mustRecord(t, s, scope, sources.Span{Source: b.ID, Start: 25, End: 34}, node(2))         // Bob paid.
		mustRecord(t, s, scope, sources.Span{Source: b.ID, Start: 35, End: 46}, node(3))         // Carol left.
		p, err := s.PlanRedaction(scope, b.ID, []storage.BlobRange{{Start: 10, End: 13}, {Start: 24, End: 25}})
		if err != nil {
			t.Fatal(err)
		}
		got := p.Overlapping()
		if len(got) != 1 || got[0].Span.Start != 0 || len(got[0].Facts) != 2 {
			t.Fatalf("overlapping %v: want the first sentence alone (the space at 24 is in no span)", got)
		}
		p, err = s.PlanRedaction(scope, b.ID, []storage.BlobRange{{Start: 33, End: 36}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Overlapping(); len(got) != 2 || got[0].Span.Start != 25 || got[1].Span.Start != 35 {
			t.Fatalf("overlapping %v: want the second and third sentences", got)
		}
	})
}

// AddTo refuses what it cannot apply, and a plan of a blob changed since.
func TestAddToRefuses(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := text(1000, 15)
		b := mustIngest(t, s, scope, doc)
		plan := func() *sources.RedactionPlan {
			p, err := s.PlanRedaction(scope, b.ID, []storage.BlobRange{{Start: runeStart(doc, 10), End: runeStart(doc, 20)}})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		var batch storage.Batch
		var nilPlan *sources.RedactionPlan
		if err := nilPlan.AddTo(&batch, entry(1)); !errors.Is(err, sources.ErrBadPlan) {
			t.Errorf("a nil plan: %v", err)
		}
		first, second := plan(), plan()
		if err := first.AddTo(nil, entry(1)); !errors.Is(err, storage.ErrNilBatch) {
			t.Errorf("a nil batch: %v", err)
		}
		if err := first.AddTo(&batch, uuid.Nil); !errors.Is(err, sources.ErrBadLedgerEntry) {
			t.Errorf("a nil ledger entry: %v", err)
		}
		if batch.Len() != 0 {
			t.Fatalf("refusals added %d mutations", batch.Len())
		}
		commit(t, env.Engine, first, entry(1))
		if err := second.AddTo(&batch, entry(2)); !errors.Is(err, sources.ErrBadPlan) || batch.Len() != 0 {
			t.Errorf("a plan of a blob redacted since: %v, %d mutations", err, batch.Len())
		}
		third, err := s.PlanRedaction(scope, b.ID, []storage.BlobRange{{Start: runeStart(doc, 30), End: runeStart(doc, 40)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := third.AddTo(&batch, entry(1)); !errors.Is(err, sources.ErrBadLedgerEntry) {
			t.Errorf("a ledger entry the record lists: %v", err)
		}
		if err := storage.WipeTenant(env.Engine, scope); err != nil {
			t.Fatal(err)
		}
		if err := third.AddTo(&batch, entry(3)); !errors.Is(err, sources.ErrBadPlan) || batch.Len() != 0 {
			t.Errorf("a plan of a wiped blob: %v, %d mutations", err, batch.Len())
		}
	})
}

// tenantRows returns the rows of the tenant in the sources family with
// their scope cut off, to compare two tenants' rows.
func tenantRows(t *testing.T, e storage.Engine, scope storage.TenantScope) []storage.KV {
	t.Helper()
	rows := rowsOf(t, e, scope)
	for i := range rows {
		rows[i].Key = rows[i].Key[storage.ScopeLen:]
	}
	return rows
}

// AddReplay in its three cases: the record lists the entry already; the
// blob is absent; the blob is there as it was before the operation.
func TestAddReplay(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scopes := storagetest.TenantScopes(t, 3)
		doc := text(2*sources.ChunkSize+99, 16)
		ranges := []storage.BlobRange{{Start: runeStart(doc, 5), End: runeStart(doc, 50)}, {Start: runeStart(doc, sources.ChunkSize-3), End: runeStart(doc, sources.ChunkSize+3)}}
		replay := func(scope storage.TenantScope, p *sources.RedactionPlan, e uuid.UUID) *storage.Batch {
			t.Helper()
			var b storage.Batch
			if err := s.AddReplay(&b, scope, p.Blob(), p.Ranges(), p.Deleted(), p.KeyedDigest(), e); err != nil {
				t.Fatalf("replay: %v", err)
			}
			return &b
		}
		// The operations in tenant 0.
		b := mustIngest(t, s, scopes[0], doc)
		redaction := mustRedact(t, s, env.Engine, scopes[0], b.ID, entry(1), ranges...)
		deletion, err := s.PlanDelete(scopes[0], b.ID)
		if err != nil {
			t.Fatal(err)
		}
		commit(t, env.Engine, deletion, entry(2))

		// 1. The record lists the entry: the blocklist row alone.
		for _, op := range []struct {
			p *sources.RedactionPlan
			e uuid.UUID
		}{{redaction, entry(1)}, {deletion, entry(2)}} {
			if batch := replay(scopes[0], op.p, op.e); batch.Len() != 1 {
				t.Fatalf("replay of an applied entry: %d mutations, want the blocklist row", batch.Len())
			}
		}

		// 2. The blob is absent (tenant 1 never held it): the blocklist
		// rows alone, which refuse the texts.
		for _, op := range []struct {
			p *sources.RedactionPlan
			e uuid.UUID
		}{{redaction, entry(1)}, {deletion, entry(2)}} {
			batch := replay(scopes[1], op.p, op.e)
			if batch.Len() != 1 {
				t.Fatalf("replay on an absent blob: %d mutations, want the blocklist row", batch.Len())
			}
			if err := env.Engine.Write(batch); err != nil {
				t.Fatal(err)
			}
		}
		for _, blocked := range [][]byte{doc, without(doc, ranges...)} {
			if _, _, err := s.IngestBytes(scopes[1], blocked); !errors.Is(err, sources.ErrBlocklisted) {
				t.Fatalf("ingest after a replay on an absent blob: %v", err)
			}
		}

		// 3. The blob as it was (tenant 2 holds the original): the same
		// rows as the operations wrote in tenant 0.
		mustIngest(t, s, scopes[2], doc)
		for _, op := range []struct {
			p *sources.RedactionPlan
			e uuid.UUID
		}{{redaction, entry(1)}, {deletion, entry(2)}} {
			if err := env.Engine.Write(replay(scopes[2], op.p, op.e)); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := tenantRows(t, env.Engine, scopes[2]), tenantRows(t, env.Engine, scopes[0]); !equalRows(got, want) {
			t.Fatalf("replayed rows differ from the operations': %d rows, want %d", len(got), len(want))
		}
		// A replay that redacts what is gone already writes the blocklist
		// row alone; one with bad ranges is refused.
		var batch storage.Batch
		if err := s.AddReplay(&batch, scopes[2], b.ID, nil, false, redaction.KeyedDigest(), entry(3)); err != nil || batch.Len() != 1 {
			t.Fatalf("replay of a redaction on a deleted blob: %v, %d mutations", err, batch.Len())
		}
		other := mustIngest(t, s, scopes[2], []byte("another text"))
		if err := s.AddReplay(&batch, scopes[2], other.ID, []storage.BlobRange{{Start: 0, End: 99}}, false, redaction.KeyedDigest(), entry(4)); !errors.Is(err, sources.ErrBadRange) {
			t.Fatalf("replay of a range past the end: %v", err)
		}
		if err := s.AddReplay(&batch, scopes[2], other.ID, []storage.BlobRange{{Start: 0, End: 2}}, false, redaction.KeyedDigest(), uuid.Nil); !errors.Is(err, sources.ErrBadLedgerEntry) {
			t.Fatalf("replay of a nil entry: %v", err)
		}
		if err := s.AddReplay(nil, scopes[2], other.ID, nil, true, redaction.KeyedDigest(), entry(5)); !errors.Is(err, storage.ErrNilBatch) {
			t.Fatalf("replay into a nil batch: %v", err)
		}
	})
}

// A damaged redaction record is ErrCorrupt for every read and plan, never
// a panic; a damaged blocklist row still refuses its text.
func TestDamagedRedactionRows(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := text(3000, 17)
		b := mustIngest(t, s, scope, doc)
		p := mustRedact(t, s, env.Engine, scope, b.ID, entry(1), storage.BlobRange{Start: runeStart(doc, 10), End: runeStart(doc, 20)})
		record := storage.RedactionRecordKey(scope, b.ID)
		good, err := env.Engine.Get(record)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range [][]byte{nil, {1}, good[:len(good)-1], append(bytes.Clone(good), 0), append([]byte{9}, good[1:]...), append([]byte{1, 2}, good[2:]...)} {
			if err := env.Engine.Put(record, bad); err != nil {
				t.Fatal(err)
			}
			_, errOpen := s.Open(scope, b.ID)
			_, errStat := s.Stat(scope, b.ID)
			_, errRange := s.ReadRange(scope, b.ID, 0, 1)
			_, errPlan := s.PlanRedaction(scope, b.ID, []storage.BlobRange{{Start: 0, End: 1}})
			_, errDelete := s.PlanDelete(scope, b.ID)
			var batch storage.Batch
			errReplay := s.AddReplay(&batch, scope, b.ID, nil, true, p.KeyedDigest(), entry(2))
			for i, err := range []error{errOpen, errStat, errRange, errPlan, errDelete, errReplay} {
				if !errors.Is(err, sources.ErrCorrupt) {
					t.Fatalf("operation %d on a record of % x: %v, want ErrCorrupt", i, bad, err)
				}
			}
		}
		digest := p.KeyedDigest()
		if err := env.Engine.Put(storage.BlocklistKey(scope, digest[:]), []byte{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.IngestBytes(scope, doc); !errors.Is(err, sources.ErrBlocklisted) {
			t.Fatalf("ingest under a damaged blocklist row: %v", err)
		}
	})
}

// A text whose blob has a redaction record but whose digest the
// blocklist lacks (restored under another deployment's secret) is
// refused with ErrRedacted, not stored again nor reported as stored.
func TestIngestOfARedactedBlobWithoutItsBlocklistRow(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		for i, deleteIt := range []bool{false, true} {
			doc := text(500, uint64(18+i))
			b := mustIngest(t, s, scope, doc)
			p, err := s.PlanRedaction(scope, b.ID, []storage.BlobRange{{Start: 0, End: runeStart(doc, 1)}})
			if deleteIt {
				p, err = s.PlanDelete(scope, b.ID)
			}
			if err != nil {
				t.Fatal(err)
			}
			commit(t, env.Engine, p, entry(i+1))
			digest := p.KeyedDigest()
			if err := env.Engine.Delete(storage.BlocklistKey(scope, digest[:])); err != nil {
				t.Fatal(err)
			}
			rows := rowsOf(t, env.Engine, scope)
			if _, _, err := s.IngestBytes(scope, doc); !errors.Is(err, sources.ErrRedacted) || errors.Is(err, sources.ErrBlocklisted) {
				t.Fatalf("deleted %v: ingest of the original: %v, want ErrRedacted", deleteIt, err)
			}
			if !equalRows(rows, rowsOf(t, env.Engine, scope)) {
				t.Fatal("a refused ingest wrote rows")
			}
		}
	})
}

// Three tenants hold the same document: a redaction and a deletion in
// tenant A touch no row of B or C, and A's blocklist refuses nothing of
// theirs.
func TestRedactionTenantIsolation(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scopes := storagetest.TenantScopes(t, 3)
		shared := text(sources.ChunkSize+300, 20)
		gone := []byte("A document tenant A deletes.")
		var before [3][]storage.KV
		for i, scope := range scopes {
			b := mustIngest(t, s, scope, shared)
			mustRecord(t, s, scope, sources.Span{Source: b.ID, Start: 0, End: 5}, node(1))
			before[i] = rowsOf(t, env.Engine, scope)
		}
		id := sources.BlobID(shared)
		p := mustRedact(t, s, env.Engine, scopes[0], id, entry(1), storage.BlobRange{Start: 0, End: runeStart(shared, 100)})
		if len(p.Overlapping()) != 1 {
			t.Fatalf("overlapping %v", p.Overlapping())
		}
		del, err := s.PlanDelete(scopes[0], mustIngest(t, s, scopes[0], gone).ID)
		if err != nil {
			t.Fatal(err)
		}
		commit(t, env.Engine, del, entry(2))
		for i, scope := range scopes[1:] {
			if !equalRows(before[i+1], rowsOf(t, env.Engine, scope)) {
				t.Fatalf("tenant %d's rows changed", i+1)
			}
			checkText(t, s, scope, id, shared)
			if facts, err := s.Facts(scope, id, 0, math.MaxUint64); err != nil || len(facts) != 1 {
				t.Fatalf("tenant %d's facts: %v, %v", i+1, facts, err)
			}
			if _, created, err := s.IngestBytes(scope, shared); err != nil || created {
				t.Fatalf("tenant %d re-ingests the text A redacted: created %v, %v", i+1, created, err)
			}
			if _, created, err := s.IngestBytes(scope, gone); err != nil || !created {
				t.Fatalf("tenant %d ingests the text A deleted: created %v, %v", i+1, created, err)
			}
			if _, err := s.PlanRedaction(scope, del.Blob(), []storage.BlobRange{{Start: 0, End: 1}}); err != nil {
				t.Fatalf("tenant %d plans a redaction of its own copy of the text A deleted: %v", i+1, err)
			}
		}
		if _, _, err := s.IngestBytes(scopes[0], shared); !errors.Is(err, sources.ErrBlocklisted) {
			t.Fatalf("tenant A re-ingests its redacted text: %v", err)
		}
		if err := storage.WipeTenant(env.Engine, scopes[0]); err != nil {
			t.Fatal(err)
		}
		for _, scope := range scopes[1:] {
			checkText(t, s, scope, id, shared)
		}
	})
}
