package vector

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/models"
)

func mustRegister(t testing.TB, s *Store, name string, dim int, m Metric) Model {
	t.Helper()
	model, err := s.RegisterModel(name, dim, m, 1)
	if err != nil {
		t.Fatal(err)
	}
	return model
}

func TestPutGetAsOf(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := New(e)
		mustRegister(t, s, "m", 2, L2)
		scope := storagetest.TenantScope(t)
		node := uuid.New()
		// valid 10 at tx 100: {1,1}; valid 20 at tx 110: {2,2};
		// correction of valid 10 at tx 120: {3,3}; tombstone from valid 30 at tx 130.
		writes := []struct {
			valid, tx storage.Timestamp
			v         []float32
		}{
			{10, 100, []float32{1, 1}},
			{20, 110, []float32{2, 2}},
			{10, 120, []float32{3, 3}},
		}
		for _, w := range writes {
			if err := s.Put(scope, node, "m", w.valid, w.tx, w.v); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Delete(scope, node, "m", 30, 130); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			at   AsOf
			want []float32 // nil: not found
		}{
			{AsOf{Valid: 9, Tx: 200}, nil},
			{AsOf{Valid: 10, Tx: 99}, nil},
			{AsOf{Valid: 10, Tx: 100}, []float32{1, 1}},
			{AsOf{Valid: 15, Tx: 115}, []float32{1, 1}},
			{AsOf{Valid: 15, Tx: 120}, []float32{3, 3}},
			{AsOf{Valid: 25, Tx: 105}, []float32{1, 1}},
			{AsOf{Valid: 25, Tx: 110}, []float32{2, 2}},
			{AsOf{Valid: 35, Tx: 129}, []float32{2, 2}},
			{AsOf{Valid: 35, Tx: 130}, nil},
			{Latest, nil},
			{AsOf{Valid: 29, Tx: storage.MaxTimestamp}, []float32{2, 2}},
		}
		for _, tt := range tests {
			got, err := s.Get(scope, node, "m", tt.at)
			switch {
			case tt.want == nil && !errors.Is(err, ErrNotFound):
				t.Errorf("as of %+v = %v, %v; want ErrNotFound", tt.at, got, err)
			case tt.want != nil && (err != nil || !slices.Equal(got, tt.want)):
				t.Errorf("as of %+v = %v, %v; want %v", tt.at, got, err, tt.want)
			}
		}
	})
}

func TestPutErrors(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := New(e)
		mustRegister(t, s, "cos", 3, Cosine)
		scope := storagetest.TenantScope(t)
		nan := float32(math.NaN())
		inf := float32(math.Inf(1))
		tests := []struct {
			name  string
			scope storage.TenantScope
			node  uuid.UUID
			model string
			tx    storage.Timestamp
			v     []float32
			want  error
		}{
			{"unknown model", scope, uuid.New(), "absent", 10, []float32{1, 2, 3}, ErrUnknownModel},
			{"model not yet registered", scope, uuid.New(), "cos", 0, []float32{1, 2, 3}, ErrUnknownModel},
			{"short", scope, uuid.New(), "cos", 10, []float32{1, 2}, ErrDimensionMismatch},
			{"long", scope, uuid.New(), "cos", 10, []float32{1, 2, 3, 4}, ErrDimensionMismatch},
			{"nan", scope, uuid.New(), "cos", 10, []float32{1, nan, 3}, ErrInvalidVector},
			{"inf", scope, uuid.New(), "cos", 10, []float32{1, inf, 3}, ErrInvalidVector},
			{"zero under cosine", scope, uuid.New(), "cos", 10, []float32{0, 0, 0}, ErrInvalidVector},
			{"zero scope", zeroScope, uuid.New(), "cos", 10, []float32{1, 2, 3}, ErrInvalidQuery},
			{"nil node", scope, uuid.Nil, "cos", 10, []float32{1, 2, 3}, ErrInvalidQuery},
		}
		for _, tt := range tests {
			if err := s.Put(tt.scope, tt.node, tt.model, 10, tt.tx, tt.v); !errors.Is(err, tt.want) {
				t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
			}
		}
		if _, err := s.Get(scope, uuid.New(), "absent", Latest); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("get under unknown model: err = %v", err)
		}
		if _, err := s.Get(scope, uuid.New(), "cos", Latest); !errors.Is(err, ErrNotFound) {
			t.Errorf("get absent: err = %v", err)
		}
		if err := s.Delete(scope, uuid.New(), "absent", 1, 10); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("delete under unknown model: err = %v", err)
		}
		q := Query{Model: "cos", Vector: []float32{1, 0, 0}, K: 1, At: Latest}
		for name, tt := range map[string]struct {
			scope storage.TenantScope
			q     Query
			want  error
		}{
			"k zero":        {scope, Query{Model: q.Model, Vector: q.Vector, At: Latest}, ErrInvalidQuery},
			"zero scope":    {zeroScope, q, ErrInvalidQuery},
			"unknown model": {scope, Query{Model: "absent", Vector: q.Vector, K: 1, At: Latest}, ErrUnknownModel},
			"dimension":     {scope, Query{Model: "cos", Vector: []float32{1}, K: 1, At: Latest}, ErrDimensionMismatch},
			"zero query":    {scope, Query{Model: "cos", Vector: []float32{0, 0, 0}, K: 1, At: Latest}, ErrInvalidVector},
		} {
			if _, err := s.Search(tt.scope, tt.q); !errors.Is(err, tt.want) {
				t.Errorf("search %s: err = %v, want %v", name, err, tt.want)
			}
		}
	})
}

// TestTenantIsolation: three tenants write the same node ids under one
// global model; each sees only its own vectors, by Get and by Search.
func TestTenantIsolation(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := New(e)
		mustRegister(t, s, "shared", 2, L2)
		scopes := []storage.TenantScope{storagetest.TenantScope(t), storagetest.TenantScope(t), storagetest.TenantScope(t)}
		nodes := []uuid.UUID{uuid.New(), uuid.New(), uuid.New(), uuid.New()}
		for ti, scope := range scopes {
			for ni, node := range nodes {
				v := []float32{float32(ti), float32(ni)}
				if err := s.Put(scope, node, "shared", 1, 10, v); err != nil {
					t.Fatal(err)
				}
			}
		}
		for ti, scope := range scopes {
			for ni, node := range nodes {
				got, err := s.Get(scope, node, "shared", Latest)
				if err != nil || !slices.Equal(got, []float32{float32(ti), float32(ni)}) {
					t.Errorf("tenant %d node %d = %v, %v", ti, ni, got, err)
				}
			}
			hits, err := s.Search(scope, Query{Model: "shared", Vector: []float32{float32(ti), 0}, K: 10, At: Latest})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != len(nodes) {
				t.Fatalf("tenant %d: %d hits, want %d", ti, len(hits), len(nodes))
			}
			for i, h := range hits {
				if h.Node != nodes[i] || h.Distance != float64(i) {
					t.Errorf("tenant %d hit %d = %+v, want node %d at %d", ti, i, h, i, i)
				}
			}
		}
		// A model registered once is visible to every tenant: it is global.
		for _, scope := range scopes {
			if err := s.Put(scope, uuid.New(), "shared", 1, 10, []float32{9, 9}); err != nil {
				t.Errorf("tenant %s cannot use the global model: %v", scope, err)
			}
		}
	})
}

// TestRedefinedModel: a search under a redefined model skips vectors of the
// old dimension, and a search as of before the redefinition still sees them.
// TestRedefineModelInUse: a tenant holds vectors of a model; redefining the
// model's dimension used to break the tenant's Put and kNN at the old
// dimension and hide its vectors from kNN at the new one. The redefinition
// is refused instead, and everything keeps working; a metric change is
// allowed.
func TestRedefineModelInUse(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := New(e)
		mustRegister(t, s, "m", 2, L2)
		scope, other := storagetest.TenantScope(t), storagetest.TenantScope(t)
		old := uuid.New()
		if err := s.Put(scope, old, "m", 1, 10, []float32{1, 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RedefineModel("m", 3, L2, 20); !errors.Is(err, ErrModelInUse) {
			t.Fatalf("redefine the dimension of a model in use: %v", err)
		}
		if _, err := s.RedefineModel("m", 2, Dot, 20); err != nil {
			t.Fatalf("redefine the metric of a model in use: %v", err)
		}
		for _, sc := range []storage.TenantScope{scope, other} {
			if err := s.Put(sc, uuid.New(), "m", 1, 30, []float32{2, 2}); err != nil {
				t.Fatalf("put after the refused redefinition: %v", err)
			}
		}
		hits, err := s.Search(scope, Query{Model: "m", Vector: []float32{1, 0}, K: 5, At: Latest})
		if err != nil || len(hits) != 2 {
			t.Fatalf("search after the refused redefinition = %+v, %v; want both vectors", hits, err)
		}
		// A tombstone is a vector row too: the model stays in use.
		if err := s.Delete(scope, old, "m", 1, 40); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RedefineModel("m", 3, Dot, 50); !errors.Is(err, ErrModelInUse) {
			t.Fatalf("redefine after a delete: %v", err)
		}
	})
}

// TestRedefineRacesWithPut runs writers of a model's first vectors against
// a redefinition of its dimension: either the redefinition is refused, or
// no vector of the old dimension was written after it.
func TestRedefineRacesWithPut(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := New(e)
		for round := range 20 {
			name := fmt.Sprintf("race-%d", round)
			mustRegister(t, s, name, 2, L2)
			scope := storagetest.TenantScope(t)
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					err := s.Put(scope, uuid.New(), name, 1, 100, []float32{1, 1})
					if err != nil && !errors.Is(err, ErrDimensionMismatch) {
						t.Error(err)
					}
				})
			}
			_, redefineErr := s.RedefineModel(name, 3, L2, 50)
			wg.Wait()
			if redefineErr != nil {
				if !errors.Is(redefineErr, ErrModelInUse) {
					t.Fatal(redefineErr)
				}
				continue
			}
			hits, err := s.Search(scope, Query{Model: name, Vector: []float32{1, 1, 1}, K: 10, At: Latest})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, err := range e.Scan(storage.TenantAll(scope, storage.Vectors)) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != len(hits) {
				t.Fatalf("round %d: %d vectors stored after the redefinition, %d of the new dimension", round, n, len(hits))
			}
		}
	})
}

// recorder is an engine that records which write methods were called.
type recorder struct {
	storage.Engine
	calls []string
}

func (r *recorder) Put(k storage.Key, v []byte) error {
	r.calls = append(r.calls, "Put")
	return r.Engine.Put(k, v)
}

func (r *recorder) Write(b *storage.Batch) error {
	r.calls = append(r.calls, "Write")
	return r.Engine.Write(b)
}

func (r *recorder) WriteDurable(b *storage.Batch) error {
	r.calls = append(r.calls, "WriteDurable")
	return r.Engine.WriteDurable(b)
}

// TestDeleteIsDurable: a vector delete is user-visible destruction, so its
// tombstone is written with WriteDurable, never under the engine's relaxed
// sync policy.
func TestDeleteIsDurable(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		rec := &recorder{Engine: e}
		s := New(rec)
		mustRegister(t, s, "m", 2, L2)
		scope, node := storagetest.TenantScope(t), uuid.New()
		if err := s.Put(scope, node, "m", 1, 10, []float32{1, 1}); err != nil {
			t.Fatal(err)
		}
		rec.calls = nil
		if err := s.Delete(scope, node, "m", 5, 20); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rec.calls, []string{"WriteDurable"}) {
			t.Fatalf("delete wrote with %v, want one WriteDurable", rec.calls)
		}
		if _, err := s.Get(scope, node, "m", Latest); !errors.Is(err, ErrNotFound) {
			t.Fatalf("get after delete: %v", err)
		}
	})
}

func TestRegistryThroughStore(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := New(e)
		m := mustRegister(t, s, "a", 4, Dot)
		if _, err := s.RegisterModel("a", 5, Dot, 2); !errors.Is(err, models.ErrModelConflict) {
			t.Errorf("conflicting registration: err = %v", err)
		}
		got, err := s.Model("a")
		if err != nil || got != m {
			t.Errorf("model = %+v, %v", got, err)
		}
		list, err := s.Models()
		if err != nil || len(list) != 1 {
			t.Errorf("models = %+v, %v", list, err)
		}
		h, err := s.ModelHistory("a")
		if err != nil || len(h) != 1 {
			t.Errorf("history = %+v, %v", h, err)
		}
		if metric, err := ParseMetric("dot"); err != nil || metric != Dot {
			t.Errorf("parse metric = %v, %v", metric, err)
		}
	})
}

// zeroScope is the zero TenantScope, which is not a scope.
var zeroScope storage.TenantScope

// TestStagedUnderOutdatedDefinition: Stage trusts the caller's model, so a
// caller holding an outdated definition stores a row of another dimension.
// That row becomes its node's latest version, which searches at the
// registered dimension pass over: by every method alike.
func TestStagedUnderOutdatedDefinition(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := New(env.Engine)
		m := mustRegister(t, s, "m", 2, L2)
		scope := storagetest.TenantScope(t)
		kept, shadowed := uuid.New(), uuid.New()
		for _, id := range []uuid.UUID{kept, shadowed} {
			if err := s.Put(scope, id, "m", 1, 10, []float32{1, 1}); err != nil {
				t.Fatal(err)
			}
		}
		outdated := m
		outdated.Dimension = 3
		var b storage.Batch
		if err := s.Stage(&b, scope, outdated, shadowed, 2, 20, []float32{1, 1, 1}); err != nil {
			t.Fatal(err)
		}
		if err := s.Write(&b); err != nil {
			t.Fatal(err)
		}
		for _, method := range []Method{FromStore, Exact, Approximate} {
			hits, err := s.Search(scope, Query{Model: "m", Vector: []float32{0, 0}, K: 5, At: Latest, Method: method})
			if err != nil || len(hits) != 1 || hits[0].Node != kept {
				t.Errorf("%s search: %v, %v; want only %s", methodName(method), hits, err, kept)
			}
		}
	})
}
