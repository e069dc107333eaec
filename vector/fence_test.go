package vector_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/tenants"
	"telha.dev/vector"
)

// TestWriteFencesEveryTenant hands Store.Write batches with rows of a
// tenant being erased: rows of another family alone, and beside a vector
// of an active tenant. Each is refused whole with ErrTenantNotWritable,
// whatever family its rows are in.
func TestWriteFencesEveryTenant(t *testing.T) {
	e := storage.NewMemoryEngine()
	t.Cleanup(func() { _ = e.Close() })
	scopes := storagetest.TenantScopes(t, 2)
	erasing, active := scopes[0], scopes[1]
	for i, s := range scopes {
		if err := tenants.Provision(e, s, []string{"erasing", "active"}[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tenants.SetState(e, erasing, tenants.Erasing); err != nil {
		t.Fatal(err)
	}
	s := vector.New(e)
	t.Cleanup(func() { _ = s.Close() })
	m, err := s.RegisterModel("fence", 3, vector.Cosine, 1)
	if err != nil {
		t.Fatal(err)
	}
	trace := storage.TraceKey(erasing, uuid.UUID{15: 1})
	var alone, beside storage.Batch
	alone.Put(trace, []byte("a row of the erasing tenant"))
	beside.Put(trace, []byte("a row of the erasing tenant"))
	if err := s.Stage(&beside, active, m, uuid.UUID{1}, 0, 10, []float32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string]*storage.Batch{"alone": &alone, "beside an active tenant's vector": &beside} {
		if err := s.Write(b); !errors.Is(err, storage.ErrTenantNotWritable) {
			t.Errorf("%s: %v, want ErrTenantNotWritable", name, err)
		}
	}
	if _, err := e.Get(trace); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the erasing tenant's row landed: %v", err)
	}
	if _, err := s.Get(active, uuid.UUID{1}, "fence", vector.AsOf{Valid: 20, Tx: 20}); !errors.Is(err, vector.ErrNotFound) {
		t.Errorf("the active tenant's vector of a refused batch landed: %v", err)
	}
}
