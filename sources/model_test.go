package sources_test

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/sources"
)

// model is the brute-force truth: every tenant's documents, the ranges
// redacted from them and which were deleted, the texts redactions and
// deletions took out, and every recorded (span, fact) pair, answered by
// looking at all of them.
type model struct {
	docs     map[storage.TenantScope]map[uuid.UUID][]byte
	redacted map[storage.TenantScope]map[uuid.UUID][]storage.BlobRange
	deleted  map[storage.TenantScope]map[uuid.UUID]bool
	blocked  map[storage.TenantScope]map[string]bool
	pairs    map[storage.TenantScope][]pair
}

// blobError is the error the model expects of an operation on blob id,
// whose original text (nil if the tenant never held it) is doc: nil,
// ErrNoBlob or ErrDeleted.
func (m *model) blobError(scope storage.TenantScope, id uuid.UUID, doc []byte) error {
	switch {
	case doc == nil:
		return sources.ErrNoBlob
	case m.deleted[scope][id]:
		return sources.ErrDeleted
	}
	return nil
}

// redactionError is the error the model expects of a redaction of ranges
// from doc, of which old are redacted already: nil, or ErrBadRange.
func redactionError(doc []byte, old, ranges []storage.BlobRange) error {
	if len(ranges) == 0 {
		return sources.ErrBadRange
	}
	n := uint64(len(doc))
	gone := func(e uint64) bool {
		return slices.ContainsFunc(old, func(r storage.BlobRange) bool { return r.Start <= e && e < r.End })
	}
	for _, r := range ranges {
		if r.Start >= r.End || r.End > n {
			return sources.ErrBadRange
		}
		for _, e := range []uint64{r.Start, r.End} {
			if e < n && !gone(e) && doc[e]&0xc0 == 0x80 {
				return sources.ErrBadRange
			}
		}
	}
	if len(without(doc, append(slices.Clone(old), ranges...)...)) == len(without(doc, old...)) {
		return sources.ErrBadRange
	}
	return nil
}

// genRanges draws up to three ranges of a text of n bytes, good and bad.
func genRanges(n int) *rapid.Generator[[]storage.BlobRange] {
	return rapid.SliceOfN(rapid.Custom(func(rt *rapid.T) storage.BlobRange {
		start := rapid.Uint64Range(0, uint64(n)+1).Draw(rt, "start")
		return storage.BlobRange{Start: start, End: rapid.Uint64Range(start, uint64(n)+1).Draw(rt, "end")}
	}), 0, 3)
}

type pair struct {
	span sources.Span
	fact sources.Fact
}

// facts answers Facts by filtering every pair of the tenant.
func (m *model) facts(scope storage.TenantScope, source uuid.UUID, start, end uint64) []sources.Provenance {
	var out []sources.Provenance
	for _, p := range m.pairs[scope] {
		if p.span.Source == source && p.span.Start < end && start < p.span.End {
			out = addFact(out, p.span, p.fact)
		}
	}
	return sortProvenance(out)
}

// passages answers Passages by filtering every pair of the tenant.
func (m *model) passages(scope storage.TenantScope, id uuid.UUID) []sources.Provenance {
	var out []sources.Provenance
	for _, p := range m.pairs[scope] {
		if p.fact.ID == id {
			out = addFact(out, p.span, p.fact)
		}
	}
	return sortProvenance(out)
}

func addFact(ps []sources.Provenance, sp sources.Span, f sources.Fact) []sources.Provenance {
	for i := range ps {
		if ps[i].Span == sp {
			if !slices.Contains(ps[i].Facts, f) {
				ps[i].Facts = append(ps[i].Facts, f)
			}
			return ps
		}
	}
	return append(ps, sources.Provenance{Span: sp, Facts: []sources.Fact{f}})
}

func sortProvenance(ps []sources.Provenance) []sources.Provenance {
	for _, p := range ps {
		slices.SortFunc(p.Facts, func(a, b sources.Fact) int {
			return cmp.Or(cmp.Compare(a.Kind, b.Kind), slices.Compare(a.ID[:], b.ID[:]),
				cmp.Compare(a.ValidStart, b.ValidStart), cmp.Compare(a.TxStart, b.TxStart))
		})
	}
	slices.SortFunc(ps, func(a, b sources.Provenance) int { return compareSpans(a.Span, b.Span) })
	return ps
}

// docPool are the documents the model test ingests: around the chunk
// boundaries, and the same text twice.
var docPool = [][]byte{
	{}, []byte("x"), []byte("é🦫"), text(200, 1),
	text(sources.ChunkSize-1, 2), text(sources.ChunkSize, 3), text(sources.ChunkSize+1, 4), text(2*sources.ChunkSize+3, 5),
}

var factPool = []sources.Fact{node(1), node(2), edge(1), {Kind: storage.IndexNode, ID: node(1).ID, ValidStart: 5, TxStart: 6}}

func TestModel(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		rapid.Check(t, func(rt *rapid.T) {
			s := openStore(env.Engine)
			var scopes []storage.TenantScope
			for range 2 {
				scope, err := storage.NewTenantScope(uuid.New(), uuid.New())
				if err != nil {
					rt.Fatal(err)
				}
				scopes = append(scopes, scope)
			}
			m := &model{docs: map[storage.TenantScope]map[uuid.UUID][]byte{}, pairs: map[storage.TenantScope][]pair{},
				redacted: map[storage.TenantScope]map[uuid.UUID][]storage.BlobRange{}, deleted: map[storage.TenantScope]map[uuid.UUID]bool{},
				blocked: map[storage.TenantScope]map[string]bool{}}
			for _, scope := range scopes {
				m.docs[scope] = map[uuid.UUID][]byte{}
				m.redacted[scope] = map[uuid.UUID][]storage.BlobRange{}
				m.deleted[scope] = map[uuid.UUID]bool{}
				m.blocked[scope] = map[string]bool{}
			}
			entries := 0
			// apply commits plan p (the tests stand in for the lifecycle),
			// and blocklists the text the blob held before it.
			apply := func(rt *rapid.T, scope storage.TenantScope, p *sources.RedactionPlan, doc []byte) {
				entries++
				commit(rt, env.Engine, p, uuid.UUID{0x1e, 14: byte(entries >> 8), 15: byte(entries)})
				m.blocked[scope][string(without(doc, m.redacted[scope][p.Blob()]...))] = true
			}
			genScope := rapid.SampledFrom(scopes)
			genDoc := rapid.IntRange(0, len(docPool)-1) // an index: the logs of a failure stay short
			// blobOf draws a blob id the tenant holds, or another one.
			blobOf := func(rt *rapid.T, scope storage.TenantScope) (uuid.UUID, []byte) {
				id := sources.BlobID(docPool[genDoc.Draw(rt, "doc")])
				return id, m.docs[scope][id]
			}
			rt.Repeat(map[string]func(*rapid.T){
				"ingest": func(rt *rapid.T) {
					scope, doc := genScope.Draw(rt, "scope"), docPool[genDoc.Draw(rt, "doc")]
					b, created, err := s.IngestBytes(scope, doc)
					if m.blocked[scope][string(doc)] {
						if !errors.Is(err, sources.ErrBlocklisted) {
							rt.Fatalf("ingest of a blocklisted text: %v", err)
						}
						return
					}
					_, had := m.docs[scope][b.ID]
					if err != nil || created == had || b.Len != int64(len(doc)) {
						rt.Fatalf("ingest %d bytes: %+v, created %v (held %v), %v", len(doc), b, created, had, err)
					}
					m.docs[scope][b.ID] = doc
				},
				"read": func(rt *rapid.T) {
					scope := genScope.Draw(rt, "scope")
					id, doc := blobOf(rt, scope)
					r, err := s.Open(scope, id)
					if want := m.blobError(scope, id, doc); want != nil || err != nil {
						if !errors.Is(err, want) || want == nil {
							rt.Fatalf("open: %v, want %v", err, want)
						}
						return
					}
					defer r.Close()
					var got bytes.Buffer
					want := without(doc, m.redacted[scope][id]...)
					if _, err := got.ReadFrom(r); err != nil || !bytes.Equal(got.Bytes(), want) {
						rt.Fatalf("read %d bytes, want %d: %v", got.Len(), len(want), err)
					}
				},
				"redact": func(rt *rapid.T) {
					scope := genScope.Draw(rt, "scope")
					id, doc := blobOf(rt, scope)
					ranges := genRanges(len(doc)).Draw(rt, "ranges")
					p, err := s.PlanRedaction(scope, id, ranges)
					want := m.blobError(scope, id, doc)
					switch {
					case len(ranges) == 0 || slices.ContainsFunc(ranges, func(r storage.BlobRange) bool { return r.Start >= r.End }):
						want = sources.ErrBadRange // the arguments are checked first
					case want == nil:
						want = redactionError(doc, m.redacted[scope][id], ranges)
					}
					if want != nil {
						if !errors.Is(err, want) {
							rt.Fatalf("redact %v of %d bytes: %v, want %v", ranges, len(doc), err, want)
						}
						return
					}
					if err != nil {
						rt.Fatalf("redact %v of %d bytes: %v", ranges, len(doc), err)
					}
					apply(rt, scope, p, doc)
					m.redacted[scope][id] = append(m.redacted[scope][id], ranges...)
				},
				"delete": func(rt *rapid.T) {
					scope := genScope.Draw(rt, "scope")
					id, doc := blobOf(rt, scope)
					p, err := s.PlanDelete(scope, id)
					if want := m.blobError(scope, id, doc); want != nil || err != nil {
						if !errors.Is(err, want) || want == nil {
							rt.Fatalf("delete: %v, want %v", err, want)
						}
						return
					}
					apply(rt, scope, p, doc)
					m.deleted[scope][id] = true
				},
				"record": func(rt *rapid.T) {
					scope := genScope.Draw(rt, "scope")
					id, doc := blobOf(rt, scope)
					start := rapid.Uint64Range(0, uint64(len(doc))+1).Draw(rt, "start")
					end := rapid.Uint64Range(0, uint64(len(doc))+1).Draw(rt, "end")
					facts := rapid.SliceOfN(rapid.SampledFrom(factPool), 1, 3).Draw(rt, "facts")
					sp := sources.Span{Source: id, Start: start, End: end}
					err := s.Record(scope, sp, facts...)
					switch want := m.blobError(scope, id, doc); {
					case want != nil:
						if !errors.Is(err, want) {
							rt.Fatalf("record on blob %s: %v, want %v", id, err, want)
						}
					case start >= end || end > uint64(len(doc)):
						if !errors.Is(err, sources.ErrBadSpan) {
							rt.Fatalf("record of bad span %s in %d bytes: %v", sp, len(doc), err)
						}
					case err != nil:
						rt.Fatal(err)
					default:
						for _, f := range facts {
							m.pairs[scope] = append(m.pairs[scope], pair{sp, f})
						}
					}
				},
				"facts": func(rt *rapid.T) {
					scope := genScope.Draw(rt, "scope")
					id, doc := blobOf(rt, scope)
					start := rapid.Uint64Range(0, uint64(len(doc))+2).Draw(rt, "start")
					end := rapid.Uint64Range(start, uint64(len(doc))+2).Draw(rt, "end")
					got, err := s.Facts(scope, id, start, end)
					if want := m.facts(scope, id, start, end); err != nil || !equalProvenance(got, want) {
						rt.Fatalf("facts [%d, %d): %v, %v\nwant %v", start, end, got, err, want)
					}
				},
				"passages": func(rt *rapid.T) {
					scope, f := genScope.Draw(rt, "scope"), rapid.SampledFrom(factPool).Draw(rt, "fact")
					got, err := s.Passages(scope, f.ID)
					if want := m.passages(scope, f.ID); err != nil || !equalProvenance(got, want) {
						rt.Fatalf("passages of %s: %v, %v\nwant %v", f.ID, got, err, want)
					}
				},
			})
		})
	})
}
