package sources_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/sources"
)

// TestAddNodeErasure erases a node and an edge erased with it from the
// spans of three tenants' identical documents, in one of them: every row
// of theirs goes in both shapes, a span that also produced a kept fact
// keeps its row with that fact alone, a fact whose id equals a blob's id
// leaves that blob's spans alone, and the other tenants keep every row.
func TestAddNodeErasure(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := openStore(e)
		scopes := storagetest.TenantScopes(t, 3)
		docA := []byte("Ada Lovelace worked with Charles Babbage on the Analytical Engine.")
		docB := []byte("Babbage designed the Difference Engine.")
		erased, kept, erasedEdge, keptEdge := node(1), node(2), edge(1), edge(2)
		erasedLater := erased
		erasedLater.TxStart++
		var a, b sources.Blob
		for _, scope := range scopes {
			a, b = mustIngest(t, s, scope, docA), mustIngest(t, s, scope, docB)
			sameAsBlob := sources.Fact{Kind: storage.IndexNode, ID: b.ID, ValidStart: 1, TxStart: 2}
			mustRecord(t, s, scope, sources.Span{Source: a.ID, Start: 0, End: 12}, erased)
			mustRecord(t, s, scope, sources.Span{Source: a.ID, Start: 0, End: 40}, erasedEdge, erased, kept)
			mustRecord(t, s, scope, sources.Span{Source: a.ID, Start: 25, End: 40}, kept)
			mustRecord(t, s, scope, sources.Span{Source: a.ID, Start: 41, End: 60}, erasedEdge)
			mustRecord(t, s, scope, sources.Span{Source: b.ID, Start: 0, End: 7}, erased, erasedLater, keptEdge)
			mustRecord(t, s, scope, sources.Span{Source: b.ID, Start: 8, End: 16}, sameAsBlob)
		}
		target := scopes[0]
		before := [][]byte{spanRows(t, e, scopes[1]), spanRows(t, e, scopes[2])}

		var batch storage.Batch
		rows, err := sources.AddNodeErasure(e, &batch, target, erased.ID, erasedEdge.ID, erasedEdge.ID)
		if err != nil {
			t.Fatal(err)
		}
		// Fact rows: erased in a[0:12], a[0:40], b[0:7]; the edge in a[0:40],
		// a[41:60]. Span rows deleted: a[0:12], a[41:60].
		if rows != 7 {
			t.Errorf("%d rows erased, want 7", rows)
		}
		if err := e.WriteDurable(&batch); err != nil {
			t.Fatal(err)
		}

		for _, id := range []uuid.UUID{erased.ID, erasedEdge.ID} {
			if got, err := s.Passages(target, id); err != nil || len(got) != 0 {
				t.Errorf("passages of the erased %s: %v, %v", id, got, err)
			}
		}
		wantA := []sources.Provenance{
			{Span: sources.Span{Source: a.ID, Start: 0, End: 40}, Facts: []sources.Fact{kept}},
			{Span: sources.Span{Source: a.ID, Start: 25, End: 40}, Facts: []sources.Fact{kept}},
		}
		if got, err := s.Facts(target, a.ID, 0, math.MaxUint64); err != nil || !equalProvenance(got, wantA) {
			t.Errorf("facts of a: %v (%v), want %v", got, err, wantA)
		}
		wantB := []sources.Provenance{
			{Span: sources.Span{Source: b.ID, Start: 0, End: 7}, Facts: []sources.Fact{keptEdge}},
			{Span: sources.Span{Source: b.ID, Start: 8, End: 16}, Facts: []sources.Fact{{Kind: storage.IndexNode, ID: b.ID, ValidStart: 1, TxStart: 2}}},
		}
		if got, err := s.Facts(target, b.ID, 0, math.MaxUint64); err != nil || !equalProvenance(got, wantB) {
			t.Errorf("facts of b: %v (%v), want %v", got, err, wantB)
		}
		if got, err := s.Passages(target, kept.ID); err != nil || len(got) != 2 {
			t.Errorf("passages of the kept node: %v, %v", got, err)
		}
		for kv, err := range e.Scan(storage.TenantAll(target, storage.Spans)) {
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(kv.Key, erased.ID[:]) || bytes.Contains(kv.Value, erased.ID[:]) ||
				bytes.Contains(kv.Key, erasedEdge.ID[:]) || bytes.Contains(kv.Value, erasedEdge.ID[:]) {
				d, _ := storage.DescribeKey(storage.Spans, kv.Key)
				t.Errorf("a span row still names an erased fact: %s", d)
			}
		}
		for i, scope := range scopes[1:] {
			if !bytes.Equal(spanRows(t, e, scope), before[i]) {
				t.Errorf("tenant %d's spans changed", i+1)
			}
		}

		// Again: nothing left to erase.
		var again storage.Batch
		if rows, err := sources.AddNodeErasure(e, &again, target, erased.ID, erasedEdge.ID); err != nil || rows != 0 || again.Len() != 0 {
			t.Errorf("a second erasure: %d rows, %d mutations, %v", rows, again.Len(), err)
		}
	})
}

func TestAddNodeErasureRefusesTheZeroScope(t *testing.T) {
	var (
		b    storage.Batch
		zero storage.TenantScope // the zero value, which is not a scope
	)
	if _, err := sources.AddNodeErasure(storage.NewMemoryEngine(), &b, zero, node(1).ID); !errors.Is(err, storage.ErrNilScope) {
		t.Errorf("the zero scope: %v, want ErrNilScope", err)
	}
}

// spanRows returns every spans row of scope, keys and values.
func spanRows(t *testing.T, r storage.Reader, scope storage.TenantScope) []byte {
	t.Helper()
	var out []byte
	for kv, err := range r.Scan(storage.TenantAll(scope, storage.Spans)) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, kv.Key...), kv.Value...)
	}
	return out
}
