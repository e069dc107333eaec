package sources_test

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/sources"
)

func mustRecord(t *testing.T, s *sources.Store, scope storage.TenantScope, sp sources.Span, facts ...sources.Fact) {
	t.Helper()
	if err := s.Record(scope, sp, facts...); err != nil {
		t.Fatalf("record %s: %v", sp, err)
	}
}

func TestProvenanceBothWays(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		a := mustIngest(t, s, scope, []byte("Ada Lovelace worked with Charles Babbage on the Analytical Engine."))
		b := mustIngest(t, s, scope, []byte("Babbage designed the Difference Engine."))
		ada, babbage, worked := node(1), node(2), edge(1)
		babbageLater := babbage
		babbageLater.TxStart++

		mustRecord(t, s, scope, sources.Span{Source: a.ID, Start: 0, End: 12}, ada)
		mustRecord(t, s, scope, sources.Span{Source: a.ID, Start: 25, End: 40}, babbage)
		mustRecord(t, s, scope, sources.Span{Source: a.ID, Start: 0, End: 40}, worked, ada, babbage)
		mustRecord(t, s, scope, sources.Span{Source: b.ID, Start: 0, End: 7}, babbageLater)
		mustRecord(t, s, scope, sources.Span{Source: a.ID, Start: 25, End: 40}, babbage) // again: no change

		all, err := s.Facts(scope, a.ID, 0, math.MaxUint64)
		if err != nil {
			t.Fatal(err)
		}
		want := []sources.Provenance{
			{Span: sources.Span{Source: a.ID, Start: 0, End: 12}, Facts: []sources.Fact{ada}},
			{Span: sources.Span{Source: a.ID, Start: 0, End: 40}, Facts: []sources.Fact{ada, babbage, worked}},
			{Span: sources.Span{Source: a.ID, Start: 25, End: 40}, Facts: []sources.Fact{babbage}},
		}
		if !equalProvenance(all, want) {
			t.Fatalf("facts of a: %v, want %v", all, want)
		}
		// A range: the spans that overlap [20, 30), and none that only touch it.
		if got, _ := s.Facts(scope, a.ID, 20, 25); !equalProvenance(got, want[1:2]) {
			t.Fatalf("facts of a[20:25]: %v, want %v", got, want[1:2])
		}
		if got, _ := s.Facts(scope, a.ID, 12, 13); !equalProvenance(got, want[1:2]) {
			t.Fatalf("facts of a[12:13]: %v", got)
		}
		if got, _ := s.Facts(scope, a.ID, 40, 50); len(got) != 0 {
			t.Fatalf("facts of a[40:50]: %v, want none", got)
		}

		got, err := s.Passages(scope, babbage.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantPassages := []sources.Provenance{
			{Span: sources.Span{Source: a.ID, Start: 0, End: 40}, Facts: []sources.Fact{babbage}},
			{Span: sources.Span{Source: a.ID, Start: 25, End: 40}, Facts: []sources.Fact{babbage}},
			{Span: sources.Span{Source: b.ID, Start: 0, End: 7}, Facts: []sources.Fact{babbageLater}},
		}
		slices.SortFunc(wantPassages, func(x, y sources.Provenance) int { return compareSpans(x.Span, y.Span) })
		if !equalProvenance(got, wantPassages) {
			t.Fatalf("passages of babbage: %v, want %v", got, wantPassages)
		}
		if got, _ := s.Passages(scope, worked.ID); len(got) != 1 || got[0].Span != want[1].Span {
			t.Fatalf("passages of the edge: %v", got)
		}
		if got, _ := s.Passages(scope, node(9).ID); len(got) != 0 {
			t.Fatalf("passages of an unknown fact: %v", got)
		}
	})
}

// A fact whose logical id equals a blob id (ids are the caller's) must not
// show up among that blob's spans, nor its spans among the fact's passages.
func TestFactIDEqualToBlobID(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := mustIngest(t, s, scope, []byte("a passage about itself"))
		twin := sources.Fact{Kind: storage.IndexNode, ID: doc.ID, ValidStart: 1, TxStart: 2}
		mustRecord(t, s, scope, sources.Span{Source: doc.ID, Start: 2, End: 9}, twin)
		facts, err := s.Facts(scope, doc.ID, 0, math.MaxUint64)
		if err != nil || len(facts) != 1 || facts[0].Span.Start != 2 {
			t.Fatalf("facts: %v, %v", facts, err)
		}
		passages, err := s.Passages(scope, twin.ID)
		if err != nil || len(passages) != 1 || passages[0].Span.Start != 2 {
			t.Fatalf("passages: %v, %v", passages, err)
		}
	})
}

func TestRecordRefusesBadInput(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		doc := mustIngest(t, s, scope, []byte("ten bytes!"))
		cases := []struct {
			name  string
			span  sources.Span
			facts []sources.Fact
			want  error
		}{
			{"empty span", sources.Span{Source: doc.ID, Start: 3, End: 3}, []sources.Fact{node(1)}, sources.ErrBadSpan},
			{"reversed span", sources.Span{Source: doc.ID, Start: 4, End: 3}, []sources.Fact{node(1)}, sources.ErrBadSpan},
			{"past the end", sources.Span{Source: doc.ID, Start: 0, End: 11}, []sources.Fact{node(1)}, sources.ErrBadSpan},
			{"start at the marker", sources.Span{Source: doc.ID, Start: math.MaxUint64, End: math.MaxUint64}, []sources.Fact{node(1)}, sources.ErrBadSpan},
			{"unknown blob", sources.Span{Source: uuid.UUID{7}, Start: 0, End: 1}, []sources.Fact{node(1)}, sources.ErrNoBlob},
			{"no facts", sources.Span{Source: doc.ID, Start: 0, End: 1}, nil, sources.ErrBadFact},
			{"nil fact id", sources.Span{Source: doc.ID, Start: 0, End: 1}, []sources.Fact{{Kind: storage.IndexNode}}, sources.ErrBadFact},
			{"unknown fact kind", sources.Span{Source: doc.ID, Start: 0, End: 1}, []sources.Fact{{Kind: 7, ID: uuid.UUID{1}}}, sources.ErrBadFact},
		}
		for _, c := range cases {
			if err := s.Record(scope, c.span, c.facts...); !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
			}
		}
		for _, err := range env.Engine.Scan(storage.TenantAll(scope, storage.Spans)) {
			t.Fatalf("a refused record left a row (%v)", err)
		}
	})
}

func compareSpans(a, b sources.Span) int {
	return cmp.Or(slices.Compare(a.Source[:], b.Source[:]), cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
}

func equalProvenance(a, b []sources.Provenance) bool {
	return slices.EqualFunc(a, b, func(x, y sources.Provenance) bool { return x.Span == y.Span && slices.Equal(x.Facts, y.Facts) })
}
