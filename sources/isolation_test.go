package sources_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/sources"
)

// TestTenantIsolation: three tenants ingest the same document and one of
// their own, record spans of the same fact ids and traces of the same ids;
// no read, listing or provenance query of one returns another's rows, a
// blob of one is unknown to the others, and wiping one leaves the others
// whole.
func TestTenantIsolation(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scopes := storagetest.TenantScopes(t, 3)
		shared := []byte("The same text, ingested by every tenant.")
		traceID := storagetest.ID(7)
		own := make([]sources.Blob, len(scopes))
		for i, scope := range scopes {
			own[i] = mustIngest(t, s, scope, fmt.Appendf(nil, "Tenant %d's own document.", i))
			b := mustIngest(t, s, scope, shared)
			f := node(1)
			f.TxStart = storage.Timestamp(i) // the same fact id, another version per tenant
			mustRecord(t, s, scope, sources.Span{Source: b.ID, Start: uint64(i), End: uint64(i + 4)}, f)
			mustRecord(t, s, scope, sources.Span{Source: own[i].ID, Start: 0, End: 6}, f)
			if _, err := s.RecordTrace(scope, sources.Trace{ID: traceID, Query: fmt.Sprintf("tenant %d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		check := func(i int, scope storage.TenantScope) {
			t.Helper()
			if got := string(mustRead(t, s, scope, own[i].ID)); got != fmt.Sprintf("Tenant %d's own document.", i) {
				t.Fatalf("tenant %d reads %q", i, got)
			}
			for j, other := range own {
				if j == i {
					continue
				}
				if _, err := s.Open(scope, other.ID); !errors.Is(err, sources.ErrNoBlob) {
					t.Fatalf("tenant %d opens tenant %d's blob: %v", i, j, err)
				}
				if err := s.Record(scope, sources.Span{Source: other.ID, Start: 0, End: 1}, node(2)); !errors.Is(err, sources.ErrNoBlob) {
					t.Fatalf("tenant %d records a span of tenant %d's blob: %v", i, j, err)
				}
				if got, err := s.Facts(scope, other.ID, 0, math.MaxUint64); err != nil || len(got) != 0 {
					t.Fatalf("tenant %d sees facts of tenant %d's blob: %v, %v", i, j, got, err)
				}
			}
			facts, err := s.Facts(scope, sources.BlobID(shared), 0, math.MaxUint64)
			if err != nil || len(facts) != 1 || facts[0].Span.Start != uint64(i) || facts[0].Facts[0].TxStart != storage.Timestamp(i) {
				t.Fatalf("tenant %d: facts of the shared blob %v, %v", i, facts, err)
			}
			passages, err := s.Passages(scope, node(1).ID)
			if err != nil || len(passages) != 2 {
				t.Fatalf("tenant %d: passages %v, %v", i, passages, err)
			}
			for _, p := range passages {
				if p.Facts[0].TxStart != storage.Timestamp(i) {
					t.Fatalf("tenant %d: passage %v holds another tenant's fact", i, p)
				}
			}
			traces := collectTraces(t, s, scope, uuid.Nil)
			if len(traces) != 1 || traces[0].Query != fmt.Sprintf("tenant %d", i) {
				t.Fatalf("tenant %d: traces %v", i, traces)
			}
		}
		for i, scope := range scopes {
			check(i, scope)
		}
		if err := storage.WipeTenant(env.Engine, scopes[1]); err != nil {
			t.Fatal(err)
		}
		check(0, scopes[0])
		check(2, scopes[2])
		if _, err := s.Open(scopes[1], own[1].ID); !errors.Is(err, sources.ErrNoBlob) {
			t.Fatalf("a wiped tenant's blob: %v", err)
		}
		if got, _ := s.Passages(scopes[1], node(1).ID); len(got) != 0 {
			t.Fatalf("a wiped tenant's passages: %v", got)
		}
	})
}
