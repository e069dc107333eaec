package vector

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/models"
)

// storeCalls is every public call of a Store, each reduced to its error.
func storeCalls(s *Store, scope storage.TenantScope) map[string]func() error {
	node := uuid.New()
	return map[string]func() error{
		"RegisterModel": func() error { _, err := s.RegisterModel("m", 2, L2, 1); return err },
		"RedefineModel": func() error { _, err := s.RedefineModel("m", 3, L2, 2); return err },
		"Model":         func() error { _, err := s.Model("m"); return err },
		"ModelAsOf":     func() error { _, err := s.ModelAsOf("m", 1); return err },
		"ModelHistory":  func() error { _, err := s.ModelHistory("m"); return err },
		"Models":        func() error { _, err := s.Models(); return err },
		"Put":           func() error { return s.Put(scope, node, "m", 1, 10, []float32{1, 2}) },
		"Delete":        func() error { return s.Delete(scope, node, "m", 1, 10) },
		"Get":           func() error { _, err := s.Get(scope, node, "m", Latest); return err },
		"Search": func() error {
			_, err := s.Search(scope, Query{Model: "m", Vector: []float32{1, 2}, K: 1, At: Latest})
			return err
		},
		"Search approximate": func() error {
			_, err := s.Search(scope, Query{Model: "m", Vector: []float32{1, 2}, K: 1, At: Latest, Method: Approximate})
			return err
		},
		"Stage": func() error {
			var b storage.Batch
			return s.Stage(&b, scope, Model{Name: "m", ID: storage.ModelIDOf("m"), Dimension: 2, Metric: L2}, node, 1, 10, []float32{1, 2})
		},
		"Write":        func() error { var b storage.Batch; return s.Write(&b) },
		"WriteDurable": func() error { var b storage.Batch; return s.WriteDurable(&b) },
		"Warm":         func() error { return s.Warm(scope, "m") },
	}
}

// TestNoEngine: a Store made over a nil engine, and the zero Store, fail
// every call with storage.ErrNotOpen instead of panicking.
func TestNoEngine(t *testing.T) {
	scope := storagetest.TenantScope(t)
	for name, s := range map[string]*Store{"New(nil)": New(nil), "zero Store": {}} {
		for call, do := range storeCalls(s, scope) {
			if err := do(); !errors.Is(err, storage.ErrNotOpen) {
				t.Errorf("%s: %s: %v, want storage.ErrNotOpen", name, call, err)
			}
		}
	}
}

// TestClosed: once the engine, or the Store, is closed, every call fails
// with storage.ErrClosed; calls racing with the Close may fail any way but
// must not panic; closing a Store twice is fine.
func TestClosed(t *testing.T) {
	for _, tc := range []struct {
		what  string
		close func(s *Store, e storage.Engine) error
	}{
		{"engine", func(_ *Store, e storage.Engine) error { return e.Close() }},
		{"Store", func(s *Store, _ storage.Engine) error { return errors.Join(s.Close(), s.Close()) }},
	} {
		t.Run(tc.what, func(t *testing.T) {
			storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
				s := New(env.Engine)
				calls := storeCalls(s, storagetest.TenantScope(t))
				if tc.what == "engine" {
					// Stage only fills a batch: the write reports the closed engine.
					delete(calls, "Stage")
				}
				for _, do := range calls {
					_ = do()
				}
				done := make(chan struct{})
				go func() {
					defer close(done)
					for range 20 {
						for _, do := range calls {
							_ = do()
						}
					}
				}()
				if err := tc.close(s, env.Engine); err != nil {
					t.Fatal(err)
				}
				<-done
				for call, do := range calls {
					if err := do(); !errors.Is(err, storage.ErrClosed) {
						t.Errorf("%s on a closed %s: %v, want ErrClosed", call, tc.what, err)
					}
				}
			})
		})
	}
}

// TestStageRefusesForgedModels: Stage takes its model from the caller; a
// model the registry could not have handed out would store a row that no
// read decodes, or a vector under another model's id.
func TestStageRefusesForgedModels(t *testing.T) {
	s := New(storage.NewMemoryEngine())
	scope := storagetest.TenantScope(t)
	real := Model{Name: "m", ID: storage.ModelIDOf("m"), Dimension: 2, Metric: L2}
	for name, m := range map[string]Model{
		"zero model":         {},
		"dimension 0":        {Name: "m", ID: real.ID, Metric: L2},
		"huge dimension":     {Name: "m", ID: real.ID, Dimension: models.MaxModelDimension + 1, Metric: L2},
		"no metric":          {Name: "m", ID: real.ID, Dimension: 2},
		"another model's id": {Name: "m", ID: storage.ModelIDOf("other"), Dimension: 2, Metric: L2},
	} {
		var b storage.Batch
		v := make([]float32, max(m.Dimension, 0)%1000)
		if err := s.Stage(&b, scope, m, uuid.New(), 1, 1, v); !errors.Is(err, models.ErrInvalidModel) || b.Len() != 0 {
			t.Errorf("%s: %v, %d rows staged; want ErrInvalidModel and none", name, err, b.Len())
		}
	}
	var b storage.Batch
	if err := s.Stage(&b, scope, real, uuid.New(), 1, 1, []float32{1, 2}); err != nil || b.Len() != 1 {
		t.Fatalf("the real model: %v", err)
	}
}

// TestHostileVectors: extreme but finite components (where float32
// arithmetic overflows), a huge K and a huge filter are answered, by every
// method alike; stored vectors never decode differently.
func TestHostileVectors(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := NewWithOptions(env.Engine, Options{ExactBelow: -1})
		mustRegister(t, s, "m", 3, L2)
		mustRegister(t, s, "c", 3, Cosine)
		scope := storagetest.TenantScope(t)
		extreme := [][]float32{
			{math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32},
			{-math.MaxFloat32, math.MaxFloat32, 0},
			{float32(math.Copysign(0, -1)), 0, 1},
		}
		ids := make([]uuid.UUID, len(extreme))
		for i, v := range extreme {
			ids[i] = uuid.New()
			for _, model := range []string{"m", "c"} {
				if err := s.Put(scope, ids[i], model, 1, 10, v); err != nil {
					t.Fatalf("put %v under %s: %v", v, model, err)
				}
				got, err := s.Get(scope, ids[i], model, Latest)
				if err != nil || math.Float32bits(got[0]) != math.Float32bits(v[0]) {
					t.Fatalf("read back %v under %s: %v, %v", v, model, got, err)
				}
			}
		}
		for _, model := range []string{"m", "c"} {
			if err := s.Warm(scope, model); err != nil {
				t.Fatal(err)
			}
			for _, k := range []int{1, 2, math.MaxInt} {
				var answers [][]Hit
				for _, method := range []Method{FromStore, Exact, Approximate} {
					hits, err := s.Search(scope, Query{Model: model, Vector: extreme[0], K: k, At: Latest, Method: method,
						Filter: &Filter{IDs: append(append([]uuid.UUID{}, ids...), make([]uuid.UUID, 10000)...)}})
					if err != nil || len(hits) != min(k, len(extreme)) {
						t.Fatalf("search %s k=%d by %s: %d hits, %v", model, k, methodName(method), len(hits), err)
					}
					for _, h := range hits {
						if math.IsNaN(h.Distance) {
							t.Fatalf("search %s by %s: NaN distance for %s", model, methodName(method), h.Node)
						}
					}
					answers = append(answers, hits)
				}
				if !slices.Equal(answers[1], answers[0]) || !slices.Equal(answers[2], answers[0]) {
					t.Fatalf("search %s k=%d: store %v, exact %v, approximate %v", model, k, answers[0], answers[1], answers[2])
				}
			}
		}
	})
}

// TestHostileQueries: a NaN or infinite query component, and a method that
// does not exist, are refused with a typed error by every method.
func TestHostileQueries(t *testing.T) {
	s := New(storage.NewMemoryEngine())
	mustRegister(t, s, "q", 2, L2)
	scope := storagetest.TenantScope(t)
	if err := s.Put(scope, uuid.New(), "q", 1, 10, []float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	for _, method := range []Method{Exact, Approximate, FromStore} {
		for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			_, err := s.Search(scope, Query{Model: "q", Vector: []float32{1, float32(x)}, K: 1, At: Latest, Method: method})
			if !errors.Is(err, ErrInvalidVector) {
				t.Errorf("%s search with a component %v: %v, want ErrInvalidVector", methodName(method), x, err)
			}
		}
	}
	if _, err := s.Search(scope, Query{Model: "q", Vector: []float32{1, 2}, K: 1, At: Latest, Method: FromStore + 1}); !errors.Is(err, ErrInvalidQuery) {
		t.Errorf("search by an unknown method: %v, want ErrInvalidQuery", err)
	}
}
