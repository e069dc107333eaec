package lifecycle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/sources"
)

// redactMarker is the passage a redaction takes out: it must leave every
// file of a RocksDB store.
const redactMarker = "REDACT-ME-5e0b2c71-marker"

// redactDoc is a document whose bytes [redactStart, redactEnd) are the
// marker, with a multi-byte character on either side.
var (
	redactDoc   = "Le rapport é " + redactMarker + " — fin du rapport.\n"
	redactStart = uint64(strings.Index(redactDoc, redactMarker))
	redactEnd   = redactStart + uint64(len(redactMarker))
)

// redactedDoc is redactDoc without the marker.
var redactedDoc = strings.Replace(redactDoc, redactMarker, "", 1)

func readText(t testing.TB, s *sources.Store, scope storage.TenantScope, blob uuid.UUID) (string, error) {
	t.Helper()
	r, err := s.Open(scope, blob)
	if err != nil {
		return "", err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	return string(b), err
}

// docFacts records, in scope's copy of redactDoc, a span over the marker
// that produced two nodes, a span before it (one node), and a span that
// overlaps it (an edge).
func docFacts(t testing.TB, s *sources.Store, scope storage.TenantScope, blob uuid.UUID) (inside, before, edge sources.Provenance) {
	t.Helper()
	n := func(b byte) sources.Fact {
		return sources.Fact{Kind: storage.IndexNode, ID: uuid.UUID{0xaa, 15: b}, TxStart: 1}
	}
	inside = sources.Provenance{Span: sources.Span{Source: blob, Start: redactStart, End: redactEnd}, Facts: []sources.Fact{n(1), n(2)}}
	before = sources.Provenance{Span: sources.Span{Source: blob, Start: 0, End: 10}, Facts: []sources.Fact{n(3)}}
	edge = sources.Provenance{Span: sources.Span{Source: blob, Start: redactStart - 3, End: redactStart + 2},
		Facts: []sources.Fact{{Kind: storage.IndexEdge, ID: uuid.UUID{0xed, 15: 1}, TxStart: 1}}}
	for _, p := range []sources.Provenance{inside, before, edge} {
		mustDo(t, s.Record(scope, p.Span, p.Facts...))
	}
	return inside, before, edge
}

// TestRedact redacts the marker from one of three tenants' copies of a
// document: the text loses exactly those bytes, the overlapping spans are
// reported, the original is refused from then on, the entry is verified,
// and the other tenants keep every row and may still ingest the original.
func TestRedact(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := sources.Open(e, sources.Options{})
		scopes := storagetest.TenantScopes(t, 3)
		var blob sources.Blob
		var inside, edge sources.Provenance
		for _, scope := range scopes {
			b, _, err := s.IngestBytes(scope, []byte(redactDoc))
			mustDo(t, err)
			blob = b
			inside, _, edge = docFacts(t, s, scope, b.ID)
		}
		target := scopes[0]
		others := [][]byte{dump(t, e, scopes[1]), dump(t, e, scopes[2])}

		red, err := Redact(e, target, blob.ID, []storage.BlobRange{{Start: redactStart, End: redactEnd}}, RedactOptions{})
		mustDo(t, err)
		en := red.Entry
		if en.Kind != ledger.KindRedaction || en.Entity != blob.ID || en.Scope != target || en.Verified.IsZero() ||
			en.Redaction.Deleted || fmt.Sprint(en.Redaction.Ranges) != fmt.Sprint([]storage.BlobRange{{Start: redactStart, End: redactEnd}}) {
			t.Errorf("ledger entry %+v %+v", en, en.Redaction)
		}
		if got, err := ledger.Get(e, en.ID); err != nil || got.Verified.IsZero() {
			t.Errorf("the stored entry: %+v, %v", got, err)
		}
		if want := []sources.Provenance{edge, inside}; fmt.Sprint(red.Overlapping) != fmt.Sprint(want) {
			t.Errorf("overlapping spans:\n got %v\nwant %v", red.Overlapping, want)
		}
		if got, err := readText(t, s, target, blob.ID); err != nil || got != redactedDoc {
			t.Errorf("the redacted text: %q, %v; want %q", got, err, redactedDoc)
		}
		if _, _, err := s.IngestBytes(target, []byte(redactDoc)); !errors.Is(err, sources.ErrBlocklisted) {
			t.Errorf("ingest of the original after the redaction: %v, want ErrBlocklisted", err)
		}
		for i, scope := range scopes[1:] {
			if !bytes.Equal(dump(t, e, scope), others[i]) {
				t.Errorf("tenant %d changed", i+1)
			}
			if got, err := readText(t, s, scope, blob.ID); err != nil || got != redactDoc {
				t.Errorf("tenant %d's copy: %q, %v", i+1, got, err)
			}
		}
		// The same range again redacts nothing: refused, and nothing changes.
		before := dump(t, e, target)
		if _, err := Redact(e, target, blob.ID, []storage.BlobRange{{Start: redactStart, End: redactEnd}}, RedactOptions{}); !errors.Is(err, sources.ErrBadRange) {
			t.Errorf("redacting the same range again: %v, want ErrBadRange", err)
		}
		if !bytes.Equal(dump(t, e, target), before) {
			t.Error("a refused redaction changed the tenant")
		}
	})
}

// TestRedactRefusesBadInput: bad ranges, a blob of another tenant, the nil
// scope, an engine that cannot compact. Nothing changes, no entry is
// written.
func TestRedactRefusesBadInput(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := sources.Open(e, sources.Options{})
		scopes := storagetest.TenantScopes(t, 2)
		blob, _, err := s.IngestBytes(scopes[0], []byte(redactDoc))
		mustDo(t, err)
		n := uint64(len(redactDoc))
		eAcute := uint64(strings.Index(redactDoc, "é"))
		before := dump(t, e, scopes[0])
		for _, c := range []struct {
			name   string
			scope  storage.TenantScope
			ranges []storage.BlobRange
			want   error
		}{
			{"no range", scopes[0], nil, sources.ErrBadRange},
			{"an empty range", scopes[0], []storage.BlobRange{{Start: 3, End: 3}}, sources.ErrBadRange},
			{"an inverted range", scopes[0], []storage.BlobRange{{Start: 9, End: 3}}, sources.ErrBadRange},
			{"past the end", scopes[0], []storage.BlobRange{{Start: 0, End: n + 1}}, sources.ErrBadRange},
			{"at math.MaxUint64", scopes[0], []storage.BlobRange{{Start: math.MaxUint64 - 1, End: math.MaxUint64}}, sources.ErrBadRange},
			{"inside a character", scopes[0], []storage.BlobRange{{Start: eAcute + 1, End: eAcute + 4}}, sources.ErrBadRange},
			{"one bad among good", scopes[0], []storage.BlobRange{{Start: 0, End: 2}, {Start: 5, End: 4}}, sources.ErrBadRange},
			{"another tenant's blob", scopes[1], []storage.BlobRange{{Start: 0, End: 2}}, sources.ErrNoBlob},
			{"the nil scope", zeroScope, []storage.BlobRange{{Start: 0, End: 2}}, storage.ErrNilScope},
		} {
			if _, err := Redact(e, c.scope, blob.ID, c.ranges, RedactOptions{}); !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
			}
		}
		if _, err := DeleteSource(e, scopes[1], blob.ID, RedactOptions{}); !errors.Is(err, sources.ErrNoBlob) {
			t.Errorf("deleting another tenant's blob: %v, want ErrNoBlob", err)
		}
		if !bytes.Equal(dump(t, e, scopes[0]), before) {
			t.Error("a refused redaction changed the tenant")
		}
		if entries, err := LedgerEntries(e); err != nil || len(entries) != 0 {
			t.Errorf("refused redactions wrote %d ledger entries (%v)", len(entries), err)
		}
	})
	if _, err := Redact(noCompactor{storage.NewMemoryEngine()}, storagetest.TenantScope(t), uuid.New(), []storage.BlobRange{{Start: 0, End: 1}}, RedactOptions{}); !errors.Is(err, storage.ErrCompactUnsupported) {
		t.Errorf("an engine that cannot compact: %v", err)
	}
}

// noCompactor hides the Compactor of an engine.
type noCompactor struct{ storage.Engine }

// TestDeleteSource deletes a blob that was redacted first: reading,
// redacting and deleting it again are ErrDeleted, and both the original
// and the redacted text are refused from then on.
func TestDeleteSource(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := sources.Open(e, sources.Options{})
		scope := storagetest.TenantScope(t)
		blob, _, err := s.IngestBytes(scope, []byte(redactDoc))
		mustDo(t, err)
		inside, before, edge := docFacts(t, s, scope, blob.ID)
		_, err = Redact(e, scope, blob.ID, []storage.BlobRange{{Start: redactStart, End: redactEnd}}, RedactOptions{})
		mustDo(t, err)
		del, err := DeleteSource(e, scope, blob.ID, RedactOptions{})
		mustDo(t, err)
		if !del.Entry.Redaction.Deleted || del.Entry.Verified.IsZero() {
			t.Errorf("ledger entry %+v %+v", del.Entry, del.Entry.Redaction)
		}
		if want := []sources.Provenance{before, edge, inside}; fmt.Sprint(del.Overlapping) != fmt.Sprint(want) {
			t.Errorf("overlapping spans of a deletion:\n got %v\nwant %v", del.Overlapping, want)
		}
		if _, err := readText(t, s, scope, blob.ID); !errors.Is(err, sources.ErrDeleted) {
			t.Errorf("reading a deleted blob: %v, want ErrDeleted", err)
		}
		if _, err := DeleteSource(e, scope, blob.ID, RedactOptions{}); !errors.Is(err, sources.ErrDeleted) {
			t.Errorf("deleting twice: %v, want ErrDeleted", err)
		}
		if _, err := Redact(e, scope, blob.ID, []storage.BlobRange{{Start: 0, End: 2}}, RedactOptions{}); !errors.Is(err, sources.ErrDeleted) {
			t.Errorf("redacting a deleted blob: %v, want ErrDeleted", err)
		}
		for _, text := range []string{redactDoc, redactedDoc} {
			if _, _, err := s.IngestBytes(scope, []byte(text)); !errors.Is(err, sources.ErrBlocklisted) {
				t.Errorf("ingest of %q after the deletion: %v, want ErrBlocklisted", text, err)
			}
		}
		if c, err := countRanges(e, []storage.ScanRange{storage.SourceRows(scope, blob.ID)}); err != nil || c.Rows != 1 {
			t.Errorf("the deleted blob keeps %d rows (%v), want its record alone", c.Rows, err)
		}
	})
}

// TestRedactEraseFacts redacts "Carol" from a graph's document with
// EraseFacts: the node asserted from it is erased with its edges and
// provenance (one of them, c->a, overlaps too: it is not erased twice),
// and an edge of two other nodes asserted from it, a->b, is erased alone:
// a and b stay, with their versions and vectors.
func TestRedactEraseFacts(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		g := newGraph(t, e, storagetest.TenantScope(t), "graph")
		s := sources.Open(e, sources.Options{})
		carol := uint64(strings.Index(graphText, "Carol"))
		other := sources.Fact{Kind: storage.IndexEdge, ID: g.ab, TxStart: 1}
		mustDo(t, s.Record(g.scope, sources.Span{Source: g.doc, Start: carol + 2, End: carol + 9}, other))
		red, err := Redact(e, g.scope, g.doc, []storage.BlobRange{{Start: carol, End: carol + 5}}, RedactOptions{EraseFacts: true})
		mustDo(t, err)
		if len(red.Erased) != 1 || red.Erased[0].Entry.Entity != g.c {
			t.Errorf("erased %v, want c alone", red.Erased)
		}
		if len(red.Edges) != 1 || red.Edges[0].Entry.Entity != g.ab || red.Edges[0].Entry.Kind != ledger.KindEntity || red.Edges[0].Entry.Verified.IsZero() {
			t.Errorf("edges erased %v, want a->b alone", red.Edges)
		}
		for _, id := range []uuid.UUID{g.c, g.ca, g.bc, g.ab} {
			if p, err := s.Passages(g.scope, id); err != nil || len(p) != 0 {
				t.Errorf("passages of %s: %v, %v", id, p, err)
			}
		}
		for _, rg := range []storage.ScanRange{storage.NodeHistory(g.scope, g.c), storage.EdgeHistory(g.scope, g.ab),
			storage.AdjacencyOutRange(g.scope, g.a), storage.AdjacencyInRange(g.scope, g.b)} {
			if c, err := countRanges(e, []storage.ScanRange{rg}); err != nil || c.Rows != 0 {
				t.Errorf("%s keeps %d rows (%v)", rg.Family(), c.Rows, err)
			}
		}
		for _, rg := range []storage.ScanRange{storage.NodeHistory(g.scope, g.a), storage.NodeHistory(g.scope, g.b),
			storage.NodeVectors(g.scope, g.a), storage.NodeVectors(g.scope, g.b)} {
			if c, err := countRanges(e, []storage.ScanRange{rg}); err != nil || c.Rows == 0 {
				t.Errorf("%s lost its rows (%v)", rg.Family(), err)
			}
		}
		for _, id := range []uuid.UUID{g.a, g.b} {
			if p, err := s.Passages(g.scope, id); err != nil || len(p) == 0 {
				t.Errorf("passages of %s: %v, %v", id, p, err)
			}
		}
	})
}

// TestRedactLeavesNoBytes redacts a marker on RocksDB and finds it in no
// file of the store; restores a checkpoint taken before the redaction
// (and one taken before the ingest) with the ledger, and finds it in no
// file of the restored store either, whose tenant refuses the original.
func TestRedactLeavesNoBytes(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "store")
	e := storagetest.OpenRocksDB(t, dir)
	scopes := storagetest.TenantScopes(t, 2)
	target, kept := scopes[0], scopes[1]
	s := sources.Open(e, sources.Options{})
	_, _, err := s.IngestBytes(kept, []byte("another tenant's document"))
	mustDo(t, err)
	checkpoint(t, e, filepath.Join(base, "before-ingest"))
	blob, _, err := s.IngestBytes(target, []byte(redactDoc))
	mustDo(t, err)
	mustDo(t, e.Close())
	e = storagetest.OpenRocksDB(t, dir) // the blob in a table file, and again in the log:
	s = sources.Open(e, sources.Options{})
	docFacts(t, s, target, blob.ID)
	var b storage.Batch
	b.Put(storage.TraceKey(kept, uuid.New()), []byte("KEPT"))
	mustDo(t, e.WriteDurable(&b))
	checkpoint(t, e, filepath.Join(base, "before-redaction"))
	if len(grepDir(t, dir, redactMarker)) == 0 {
		t.Fatal("the marker is in no file before the redaction: the test proves nothing")
	}
	keptRows := dump(t, e, kept)

	_, err = Redact(e, target, blob.ID, []storage.BlobRange{{Start: redactStart, End: redactEnd}}, RedactOptions{})
	mustDo(t, err)
	if hits := grepDir(t, dir, redactMarker); len(hits) > 0 {
		t.Errorf("after the redaction, the marker is in %v", hits)
	}
	entries, err := LedgerEntries(e)
	mustDo(t, err)
	mustDo(t, e.Close())
	if hits := grepDir(t, dir, redactMarker); len(hits) > 0 {
		t.Errorf("after the store closed, the marker is in %v", hits)
	}

	for _, ckpt := range []string{"before-redaction", "before-ingest"} {
		t.Run(ckpt, func(t *testing.T) {
			restored := filepath.Join(t.TempDir(), "restored")
			res, err := Restore(filepath.Join(base, ckpt), restored, entries, RestoreOptions{})
			mustDo(t, err)
			if len(res.Replayed) != 1 {
				t.Errorf("%d entries replayed, want 1", len(res.Replayed))
			}
			if hits := grepDir(t, restored, redactMarker); len(hits) > 0 {
				t.Errorf("after the restore, the marker is in %v", hits)
			}
			r := storagetest.OpenRocksDB(t, restored)
			rs := sources.Open(r, sources.Options{})
			if _, _, err := rs.IngestBytes(target, []byte(redactDoc)); !errors.Is(err, sources.ErrBlocklisted) {
				t.Errorf("the restored store takes the original again: %v", err)
			}
			if ckpt == "before-redaction" {
				if got, err := readText(t, rs, target, blob.ID); err != nil || got != redactedDoc {
					t.Errorf("the restored text: %q, %v", got, err)
				}
				if !bytes.Equal(dump(t, r, kept), keptRows) {
					t.Error("the kept tenant differs")
				}
			}
			if en, err := ledger.Get(r, entries[0].ID); err != nil || en.Kind != ledger.KindRedaction {
				t.Errorf("the restored ledger: %+v, %v", en, err)
			}
		})
	}
}

// TestRestoreRefusesForgedRedaction restores with a redaction entry that
// also carries the deletion of another tenant's rows: refused, and no
// store is put in place.
func TestRestoreRefusesForgedRedaction(t *testing.T) {
	base := t.TempDir()
	dir, ckpt, restored := filepath.Join(base, "store"), filepath.Join(base, "ckpt"), filepath.Join(base, "restored")
	e := storagetest.OpenRocksDB(t, dir)
	scopes := storagetest.TenantScopes(t, 2)
	s := sources.Open(e, sources.Options{})
	blob, _, err := s.IngestBytes(scopes[0], []byte(redactDoc))
	mustDo(t, err)
	_, _, err = s.IngestBytes(scopes[1], []byte(redactDoc))
	mustDo(t, err)
	checkpoint(t, e, ckpt)
	red, err := Redact(e, scopes[0], blob.ID, []storage.BlobRange{{Start: redactStart, End: redactEnd}}, RedactOptions{})
	mustDo(t, err)
	mustDo(t, e.Close())
	forged := red.Entry
	forged.Add(storage.TenantAll(scopes[1], storage.Sources), 1, 1)
	if _, err := Restore(ckpt, restored, []ledger.Entry{forged}, RestoreOptions{}); !errors.Is(err, ledger.ErrBadEntry) {
		t.Errorf("restore with a forged redaction: %v, want ErrBadEntry", err)
	}
	if _, err := os.Stat(restored); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused restore left a store: %v", err)
	}
}

// TestBlocklistSurvivesExportImport redacts a blob, exports the tenant,
// and imports it under another scope of the same store: the new tenant
// refuses the original too, and reads the redacted text.
func TestBlocklistSurvivesExportImport(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		from, to := scopeN(t, 1), scopeN(t, 2)
		provision(t, e, from, "from")
		provision(t, e, to, "to")
		s := sources.Open(e, sources.Options{})
		blob, _, err := s.IngestBytes(from, []byte(redactDoc))
		mustDo(t, err)
		_, err = Redact(e, from, blob.ID, []storage.BlobRange{{Start: redactStart, End: redactEnd}}, RedactOptions{})
		mustDo(t, err)
		_, err = Import(e, to, bytes.NewReader(export(t, e, from)), Options{})
		mustDo(t, err)
		if _, _, err := s.IngestBytes(to, []byte(redactDoc)); !errors.Is(err, sources.ErrBlocklisted) {
			t.Errorf("the imported tenant takes the original: %v, want ErrBlocklisted", err)
		}
		if got, err := readText(t, s, to, blob.ID); err != nil || got != redactedDoc {
			t.Errorf("the imported text: %q, %v", got, err)
		}
	})
}

// redactChildEnv carries "store dir|step|tenant|organization|blob" to the
// child process of TestRedactSurvivesKill.
const redactChildEnv = "TELHA_LIFECYCLE_REDACT_CHILD"

// TestRedactCrashChild is the child's body: it redacts the marker with
// EraseFacts and kills itself with SIGKILL right after the step it is
// given. It runs only when re-executed by TestRedactSurvivesKill.
func TestRedactCrashChild(t *testing.T) {
	e, step, scope, rest := crashChild(t, redactChildEnv)
	_, err := Redact(e, scope, uuid.MustParse(rest[0]), []storage.BlobRange{{Start: redactStart, End: redactEnd}}, RedactOptions{EraseFacts: true})
	t.Fatalf("the redaction returned (%v) instead of being killed after %s", err, step)
}

// TestRedactSurvivesKill redacts with EraseFacts in a child process killed
// with SIGKILL right after each step, then opens the store, runs Resume,
// and checks that the redaction completed: the text redacted, the
// original refused, the overlapping nodes and edge erased, the entry
// verified, the marker in no file.
func TestRedactSurvivesKill(t *testing.T) {
	for _, step := range []EraseStep{StepDelete, StepCompact, StepEraseFacts, StepVerify, StepMarkVerified} {
		t.Run(step.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			e := storagetest.OpenRocksDB(t, dir)
			scope := storagetest.TenantScope(t)
			s := sources.Open(e, sources.Options{})
			blob, _, err := s.IngestBytes(scope, []byte(redactDoc))
			mustDo(t, err)
			inside, _, edge := docFacts(t, s, scope, blob.ID)
			mustDo(t, e.Close())

			runCrashChild(t, "TestRedactCrashChild", redactChildEnv, dir, step, scope, blob.ID.String())

			e = storagetest.OpenRocksDB(t, dir)
			_, err = Resume(e, EraseOptions{})
			mustDo(t, err)
			s = sources.Open(e, sources.Options{})
			if got, err := readText(t, s, scope, blob.ID); err != nil || got != redactedDoc {
				t.Errorf("the text after the resumed redaction: %q, %v", got, err)
			}
			if _, _, err := s.IngestBytes(scope, []byte(redactDoc)); !errors.Is(err, sources.ErrBlocklisted) {
				t.Errorf("the original after the resumed redaction: %v, want ErrBlocklisted", err)
			}
			for _, f := range append(inside.Facts, edge.Facts...) {
				if p, err := s.Passages(scope, f.ID); err != nil || len(p) != 0 {
					t.Errorf("the overlapping fact %s keeps passages %v (%v)", f.ID, p, err)
				}
			}
			entries, err := LedgerEntries(e)
			mustDo(t, err)
			redactions := 0
			for _, en := range entries {
				if en.Verified.IsZero() {
					t.Errorf("ledger entry %s (%s) is not verified", en.ID, en.Kind)
				}
				if en.Kind == ledger.KindRedaction {
					redactions++
				}
			}
			if redactions != 1 {
				t.Errorf("%d redaction entries, want 1", redactions)
			}
			if hits := grepDir(t, dir, redactMarker); len(hits) > 0 {
				t.Errorf("after the resumed redaction, the marker is in %v", hits)
			}
		})
	}
}

// staleEngine is an engine whose snapshots read a state it no longer
// keeps, as an etcd engine's do after another process compacted the
// history they were taken at.
type staleEngine struct {
	storage.Engine
	storage.Compactor
}

func (e staleEngine) Snapshot() (storage.Snapshot, error) {
	s, err := e.Engine.Snapshot()
	return staleSnapshot{s}, err
}

type staleSnapshot struct{ storage.Snapshot }

func (staleSnapshot) Get(storage.Key) ([]byte, error) { return nil, storage.ErrStale }

func (staleSnapshot) Scan(storage.ScanRange) iter.Seq2[storage.KV, error] {
	return func(yield func(storage.KV, error) bool) { yield(storage.KV{}, storage.ErrStale) }
}

// TestRedactPlannedFromAStaleState: a plan whose snapshot another
// process's compaction took away is ErrBadPlan (the blob changed while it
// was planned), and nothing is written.
func TestRedactPlannedFromAStaleState(t *testing.T) {
	e := storage.NewMemoryEngine()
	scope := storagetest.TenantScope(t)
	b, _, err := sources.Open(e, sources.Options{}).IngestBytes(scope, []byte(redactDoc))
	mustDo(t, err)
	before := dump(t, e, scope)
	stale := staleEngine{e, e}
	if _, err := Redact(stale, scope, b.ID, []storage.BlobRange{{Start: redactStart, End: redactEnd}}, RedactOptions{}); !errors.Is(err, sources.ErrBadPlan) || !errors.Is(err, storage.ErrStale) {
		t.Errorf("redaction planned from a stale state: %v, want ErrBadPlan wrapping ErrStale", err)
	}
	if !bytes.Equal(dump(t, e, scope), before) {
		t.Error("the refused redaction changed the tenant")
	}
}
