package models

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

func TestRegisterModel(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		m, err := RegisterModel(e, "text-small", 384, MetricCosine, 100)
		if err != nil {
			t.Fatal(err)
		}
		want := Model{Name: "text-small", ID: storage.ModelIDOf("text-small"), Dimension: 384, Metric: MetricCosine, TxStart: 100}
		if m != want {
			t.Fatalf("register = %+v, want %+v", m, want)
		}
		// Same definition again: idempotent, the original version stays.
		again, err := RegisterModel(e, "text-small", 384, MetricCosine, 200)
		if err != nil || again != want {
			t.Fatalf("re-register = %+v, %v; want %+v", again, err, want)
		}
		got, err := LookupModel(e, "text-small")
		if err != nil || got != want {
			t.Fatalf("lookup = %+v, %v; want %+v", got, err, want)
		}
		h, err := ModelHistory(e, "text-small")
		if err != nil || len(h) != 1 {
			t.Fatalf("history = %+v, %v; want one version", h, err)
		}
	})
}

func TestRegisterModelErrors(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		if _, err := RegisterModel(e, "m", 8, MetricDot, 10); err != nil {
			t.Fatal(err)
		}
		tests := []struct {
			name   string
			model  string
			dim    int
			metric Metric
			want   error
		}{
			{"other dimension", "m", 16, MetricDot, ErrModelConflict},
			{"other metric", "m", 8, MetricL2, ErrModelConflict},
			{"empty name", "", 8, MetricL2, ErrInvalidModel},
			{"long name", string(bytes.Repeat([]byte("n"), MaxModelNameLen+1)), 8, MetricL2, ErrInvalidModel},
			{"bad utf8", "\xff", 8, MetricL2, ErrInvalidModel},
			{"zero dimension", "z", 0, MetricL2, ErrInvalidModel},
			{"huge dimension", "z", MaxModelDimension + 1, MetricL2, ErrInvalidModel},
			{"zero metric", "z", 8, 0, ErrInvalidModel},
			{"unknown metric", "z", 8, 9, ErrInvalidModel},
		}
		for _, tt := range tests {
			if _, err := RegisterModel(e, tt.model, tt.dim, tt.metric, 20); !errors.Is(err, tt.want) {
				t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
			}
		}
		if _, err := LookupModel(e, "absent"); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("lookup absent: err = %v, want ErrUnknownModel", err)
		}
		if _, err := ModelHistory(e, "absent"); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("history absent: err = %v, want ErrUnknownModel", err)
		}
		if _, err := RedefineModel(e, "absent", 4, MetricL2, 30); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("redefine absent: err = %v, want ErrUnknownModel", err)
		}
		if _, err := RedefineModel(e, "m", 4, MetricL2, 10); !errors.Is(err, ErrStaleTx) {
			t.Errorf("redefine at same tx: err = %v, want ErrStaleTx", err)
		}
	})
}

func TestRedefineModel(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		v1, err := RegisterModel(e, "m", 8, MetricDot, 10)
		if err != nil {
			t.Fatal(err)
		}
		v2, err := RedefineModel(e, "m", 16, MetricL2, 20)
		if err != nil {
			t.Fatal(err)
		}
		same, err := RedefineModel(e, "m", 16, MetricL2, 30)
		if err != nil || same != v2 {
			t.Fatalf("redefine unchanged = %+v, %v; want %+v", same, err, v2)
		}
		asOf := []struct {
			tx      storage.Timestamp
			want    Model
			wantErr error
		}{
			{9, Model{}, ErrUnknownModel},
			{10, v1, nil},
			{19, v1, nil},
			{20, v2, nil},
			{storage.MaxTimestamp, v2, nil},
		}
		for _, tt := range asOf {
			got, err := LookupModelAsOf(e, "m", tt.tx)
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("as of %d = %+v, %v; want %+v, %v", tt.tx, got, err, tt.want, tt.wantErr)
			}
		}
		h, err := ModelHistory(e, "m")
		if err != nil || len(h) != 2 || h[0] != v2 || h[1] != v1 {
			t.Fatalf("history = %+v, %v; want [v2 v1]", h, err)
		}
	})
}

func TestListModels(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		names := []string{"a", "b", "c", "d"}
		for i, n := range names {
			if _, err := RegisterModel(e, n, i+1, MetricCosine, storage.Timestamp(i)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := RedefineModel(e, "b", 99, MetricL2, 50); err != nil {
			t.Fatal(err)
		}
		list, err := ListModels(e)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != len(names) {
			t.Fatalf("list = %+v, want %d models", list, len(names))
		}
		seen := map[string]Model{}
		for i, m := range list {
			seen[m.Name] = m
			if i > 0 && list[i-1].ID >= m.ID {
				t.Errorf("list not in id order: %+v", list)
			}
		}
		if seen["b"].Dimension != 99 || seen["d"].Dimension != 4 {
			t.Errorf("list = %+v, want latest versions", list)
		}
	})
}

// TestModelsAreGlobal: the registry lies outside every tenant, so no
// tenant scan of the schema family sees it.
func TestModelsAreGlobal(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		if _, err := RegisterModel(e, "m", 8, MetricDot, 10); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			s := storagetest.TenantScope(t)
			for kv, err := range e.Scan(storage.TenantAll(s, storage.Schema)) {
				t.Fatalf("tenant %s sees schema row %x, %v", s, kv.Key, err)
			}
		}
	})
}

// TestModelIDCollision forges a row whose stored name does not hash to its
// key, as a real xxh3 collision would look, and expects a loud failure.
func TestModelIDCollision(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		id := storage.ModelIDOf("victim")
		forged := encodeModel(Model{Name: "intruder", Dimension: 4, Metric: MetricL2})
		if err := e.Put(storage.SystemScope{}.VectorModelKey(id, 5), forged); err != nil {
			t.Fatal(err)
		}
		if _, err := LookupModel(e, "victim"); !errors.Is(err, ErrModelIDCollision) {
			t.Errorf("lookup: err = %v, want ErrModelIDCollision", err)
		}
		if _, err := RegisterModel(e, "victim", 4, MetricL2, 6); !errors.Is(err, ErrModelIDCollision) {
			t.Errorf("register: err = %v, want ErrModelIDCollision", err)
		}
		if _, err := ListModels(e); !errors.Is(err, ErrModelIDCollision) {
			t.Errorf("list: err = %v, want ErrModelIDCollision", err)
		}
	})
}

func TestModelValueRoundTrip(t *testing.T) {
	for _, m := range []Model{
		{Name: "a", Dimension: 1, Metric: MetricCosine},
		{Name: "text-embedding-3-large", Dimension: 3072, Metric: MetricDot},
		{Name: string(bytes.Repeat([]byte("é"), MaxModelNameLen/2)), Dimension: MaxModelDimension, Metric: MetricL2},
	} {
		got, err := decodeModel(encodeModel(m))
		if err != nil || got != m {
			t.Errorf("round trip %+v = %+v, %v", m, got, err)
		}
	}
}

func TestDecodeModelErrors(t *testing.T) {
	good := encodeModel(Model{Name: "m", Dimension: 8, Metric: MetricDot})
	tests := map[string][]byte{
		"empty":         nil,
		"short":         good[:5],
		"version":       append([]byte{2}, good[1:]...),
		"metric":        append([]byte{1, 7}, good[2:]...),
		"zero dim":      {1, 2, 0, 0, 0, 0, 0, 1, 'm'},
		"huge dim":      {1, 2, 0xff, 0xff, 0xff, 0xff, 0, 1, 'm'},
		"name too long": append(append([]byte(nil), good...), 'x'),
		"name cut":      {1, 2, 0, 0, 0, 8, 0, 2, 'm'},
		"empty name":    {1, 2, 0, 0, 0, 8, 0, 0},
	}
	for name, b := range tests {
		if _, err := decodeModel(b); !errors.Is(err, ErrBadModelValue) {
			t.Errorf("%s: err = %v, want ErrBadModelValue", name, err)
		}
	}
}

func TestParseMetric(t *testing.T) {
	for _, m := range []Metric{MetricCosine, MetricDot, MetricL2} {
		got, err := ParseMetric(m.String())
		if err != nil || got != m {
			t.Errorf("parse %s = %v, %v", m, got, err)
		}
	}
	if _, err := ParseMetric("hamming"); !errors.Is(err, ErrInvalidModel) {
		t.Errorf("parse hamming: err = %v", err)
	}
}

// FuzzDecodeModel: the decoder never panics, and whatever it accepts
// re-encodes to the same bytes.
func FuzzDecodeModel(f *testing.F) {
	f.Add(encodeModel(Model{Name: "m", Dimension: 8, Metric: MetricDot}))
	f.Add(encodeModel(Model{Name: "text-embedding", Dimension: 1536, Metric: MetricCosine}))
	f.Add([]byte{})
	f.Add([]byte{1, 3, 0, 0, 0, 1, 0, 0})
	f.Add([]byte{1, 3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeModel(b)
		if err != nil {
			if !errors.Is(err, ErrBadModelValue) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !bytes.Equal(encodeModel(m), b) {
			t.Fatalf("re-encode of %+v = %x, want %x", m, encodeModel(m), b)
		}
	})
}

// TestRegisterModelConcurrent: many goroutines registering the same model
// at once all get the first version, and exactly one row is written.
func TestRegisterModelConcurrent(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		const n = 16
		got := make([]Model, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				got[i], errs[i] = RegisterModel(e, "race", 8, MetricCosine, storage.Timestamp(100+i))
			})
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil || got[i] != got[0] {
				t.Fatalf("registration %d = %+v, %v; want %+v", i, got[i], errs[i], got[0])
			}
		}
		h, err := ModelHistory(e, "race")
		if err != nil || len(h) != 1 || h[0] != got[0] {
			t.Fatalf("history = %+v, %v; want one version", h, err)
		}
	})
}

// TestRedefineModelInUse: a dimension change is refused while any tenant
// holds a vector row of the model, whatever the other models and tenants
// hold; the metric may change.
func TestRedefineModelInUse(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		for _, m := range []string{"used", "other"} {
			if _, err := RegisterModel(e, m, 4, MetricL2, 10); err != nil {
				t.Fatal(err)
			}
		}
		s := storagetest.TenantScope(t)
		if err := e.Put(storage.VectorKey(s, uuid.New(), storage.ModelIDOf("used"), 1, 20), []byte("a vector")); err != nil {
			t.Fatal(err)
		}
		if _, err := RedefineModel(e, "used", 8, MetricL2, 30); !errors.Is(err, ErrModelInUse) {
			t.Fatalf("redefine a model in use: %v", err)
		}
		if _, err := RedefineModel(e, "used", 4, MetricDot, 30); err != nil {
			t.Fatalf("change the metric of a model in use: %v", err)
		}
		if _, err := RedefineModel(e, "other", 8, MetricL2, 30); err != nil {
			t.Fatalf("redefine a model next to one in use: %v", err)
		}
		if m, err := LookupModel(e, "used"); err != nil || m.Dimension != 4 || m.Metric != MetricDot {
			t.Fatalf("the model in use is now %+v, %v", m, err)
		}
	})
}

// otherProcess is a store on which another process registers a model
// between this process's reads and its write: the race of two processes'
// registrations of one name on one etcd cluster, made certain.
type otherProcess struct {
	*storage.MemoryEngine
	name      string
	dimension int
	raced     bool
}

func (o *otherProcess) WriteDurable(b *storage.Batch) error {
	if !o.raced {
		o.raced = true
		registryMu.Unlock() // the other process has its own
		_, err := RegisterModel(o.MemoryEngine, o.name, o.dimension, MetricL2, 50)
		registryMu.Lock()
		if err != nil {
			return err
		}
	}
	return o.MemoryEngine.WriteDurable(b)
}

// Two processes register one name with two dimensions at once: the one
// whose write lands second finds the other's definition and fails with
// ErrModelConflict, writing nothing; the same definition is returned as
// registered.
func TestRegistrationOvertakenByAnotherProcess(t *testing.T) {
	e := &otherProcess{MemoryEngine: storage.NewMemoryEngine(), name: "raced", dimension: 8}
	if _, err := RegisterModel(e, "raced", 16, MetricL2, 100); !errors.Is(err, ErrModelConflict) || !e.raced {
		t.Fatalf("a registration overtaken by another definition: %v, want ErrModelConflict", err)
	}
	if h, err := ModelHistory(e, "raced"); err != nil || len(h) != 1 || h[0].Dimension != 8 {
		t.Fatalf("history %+v, %v; want the other process's version alone", h, err)
	}
	same := &otherProcess{MemoryEngine: storage.NewMemoryEngine(), name: "raced", dimension: 8}
	if m, err := RegisterModel(same, "raced", 8, MetricL2, 100); err != nil || m.TxStart != 50 {
		t.Fatalf("a registration overtaken by the same definition: %+v, %v; want the other's version", m, err)
	}
}
