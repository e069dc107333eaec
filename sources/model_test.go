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

// model is the brute-force truth: every tenant's documents, and every
// recorded (span, fact) pair, answered by looking at all of them.
type model struct {
	docs  map[storage.TenantScope]map[uuid.UUID][]byte
	pairs map[storage.TenantScope][]pair
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
			m := &model{docs: map[storage.TenantScope]map[uuid.UUID][]byte{}, pairs: map[storage.TenantScope][]pair{}}
			for _, scope := range scopes {
				m.docs[scope] = map[uuid.UUID][]byte{}
			}
			genScope := rapid.SampledFrom(scopes)
			// blobOf draws a blob id the tenant holds, or another one.
			blobOf := func(rt *rapid.T, scope storage.TenantScope) (uuid.UUID, []byte) {
				id := sources.BlobID(rapid.SampledFrom(docPool).Draw(rt, "doc"))
				return id, m.docs[scope][id]
			}
			rt.Repeat(map[string]func(*rapid.T){
				"ingest": func(rt *rapid.T) {
					scope, doc := genScope.Draw(rt, "scope"), rapid.SampledFrom(docPool).Draw(rt, "doc")
					b, created, err := s.IngestBytes(scope, doc)
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
					if doc == nil {
						if !errors.Is(err, sources.ErrNoBlob) {
							rt.Fatalf("open of a blob the tenant lacks: %v", err)
						}
						return
					}
					if err != nil {
						rt.Fatal(err)
					}
					defer r.Close()
					var got bytes.Buffer
					if _, err := got.ReadFrom(r); err != nil || !bytes.Equal(got.Bytes(), doc) {
						rt.Fatalf("read %d bytes, want %d: %v", got.Len(), len(doc), err)
					}
				},
				"record": func(rt *rapid.T) {
					scope := genScope.Draw(rt, "scope")
					id, doc := blobOf(rt, scope)
					start := rapid.Uint64Range(0, uint64(len(doc))+1).Draw(rt, "start")
					end := rapid.Uint64Range(0, uint64(len(doc))+1).Draw(rt, "end")
					facts := rapid.SliceOfN(rapid.SampledFrom(factPool), 1, 3).Draw(rt, "facts")
					sp := sources.Span{Source: id, Start: start, End: end}
					err := s.Record(scope, sp, facts...)
					switch {
					case doc == nil:
						if !errors.Is(err, sources.ErrNoBlob) {
							rt.Fatalf("record on a blob the tenant lacks: %v", err)
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
