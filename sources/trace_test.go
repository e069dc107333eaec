package sources_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/sources"
)

func collectTraces(t *testing.T, s *sources.Store, scope storage.TenantScope, after uuid.UUID) []sources.Trace {
	t.Helper()
	var out []sources.Trace
	for tr, err := range s.Traces(scope, after) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tr)
	}
	return out
}

func equalTrace(a, b sources.Trace) bool {
	return a.ID == b.ID && a.Query == b.Query && a.AsOf == b.AsOf && a.Recorded == b.Recorded &&
		maps.Equal(a.Params, b.Params) && slices.Equal(a.Results, b.Results)
}

func TestTraces(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := openStore(env.Engine)
		scope := storagetest.TenantScope(t)
		if got := collectTraces(t, s, scope, uuid.Nil); len(got) != 0 {
			t.Fatalf("traces before any: %v", got)
		}
		var recorded []sources.Trace
		for i := range 5 {
			tr, err := s.RecordTrace(scope, sources.Trace{
				Query:   "graph.neighbors",
				AsOf:    storage.Timestamp(100 * i),
				Params:  map[string]string{"user": "analyst-7", "node": uuid.UUID{byte(i)}.String(), "hops": "2"},
				Results: []uuid.UUID{{1, byte(i)}, {2, byte(i)}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if tr.ID == uuid.Nil || tr.ID.Version() != 7 || tr.Recorded != storage.TimestampOf(fixedNow()) {
				t.Fatalf("recorded trace %+v: want a UUIDv7 id and the clock's time", tr)
			}
			recorded = append(recorded, tr)
		}
		empty, err := s.RecordTrace(scope, sources.Trace{Query: "vector.knn"})
		if err != nil {
			t.Fatal(err)
		}
		recorded = append(recorded, empty)

		got := collectTraces(t, s, scope, uuid.Nil)
		if !slices.EqualFunc(got, recorded, equalTrace) {
			t.Fatalf("traces: %v\nwant %v", got, recorded)
		}
		if got := collectTraces(t, s, scope, recorded[2].ID); !slices.EqualFunc(got, recorded[3:], equalTrace) {
			t.Fatalf("traces after the third: %v", got)
		}
		for _, want := range recorded {
			if tr, err := s.Trace(scope, want.ID); err != nil || !equalTrace(tr, want) {
				t.Fatalf("trace %s: %+v, %v", want.ID, tr, err)
			}
		}
		if _, err := s.Trace(scope, uuid.UUID{9}); !errors.Is(err, sources.ErrNoTrace) {
			t.Fatalf("unknown trace: %v", err)
		}
		if _, err := s.RecordTrace(scope, sources.Trace{ID: recorded[0].ID, Query: "graph.neighbors"}); !errors.Is(err, sources.ErrTraceExists) {
			t.Fatalf("a trace recorded twice: %v", err)
		}
		for name, bad := range map[string]sources.Trace{
			"no query":         {},
			"long query":       {Query: strings.Repeat("q", sources.MaxQueryLen+1)},
			"empty param name": {Query: "q", Params: map[string]string{"": "x"}},
			"long param value": {Query: "q", Params: map[string]string{"k": strings.Repeat("v", sources.MaxParamLen+1)}},
			"too many results": {Query: "q", Results: make([]uuid.UUID, sources.MaxTraceItems+1)},
		} {
			if _, err := s.RecordTrace(scope, bad); !errors.Is(err, sources.ErrBadTrace) {
				t.Errorf("%s: %v, want ErrBadTrace", name, err)
			}
		}
		if got := collectTraces(t, s, scope, uuid.Nil); len(got) != len(recorded) {
			t.Fatalf("%d traces after refusals, want %d", len(got), len(recorded))
		}
	})
}
