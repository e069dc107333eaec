package sources_test

import (
	"errors"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/tenants"
	"telha.dev/sources"
)

// TestWritesRacingARegistryChange changes the registry row of a tenant
// between a write's check of it and its batch: a change that leaves the
// tenant writable (a scope provisioned meanwhile) lets the write land,
// made again on the new row; one that does not (an erasure begun) refuses
// it with ErrTenantNotWritable and leaves no row of it.
func TestWritesRacingARegistryChange(t *testing.T) {
	for _, c := range []struct {
		name   string
		setup  func(e storage.Engine, scope storage.TenantScope) error
		change func(e storage.Engine, scope storage.TenantScope) error
		lands  bool
	}{
		{"provisioned", nil, func(e storage.Engine, scope storage.TenantScope) error {
			return tenants.Provision(e, scope, "late")
		}, true},
		{"erasing", func(e storage.Engine, scope storage.TenantScope) error {
			return tenants.Provision(e, scope, "leaving")
		}, func(e storage.Engine, scope storage.TenantScope) error {
			return tenants.SetState(e, scope, tenants.Erasing)
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			inner := storage.NewMemoryEngine()
			t.Cleanup(func() { _ = inner.Close() })
			e := &storagetest.RacingWriter{Engine: inner}
			scopes := storagetest.TenantScopes(t, 2)
			scope, other := scopes[0], scopes[1]
			s := sources.Open(e, sources.Options{})
			// The first document of a store makes its blocklist secret: a
			// write of its own, not the one raced.
			if _, _, err := s.IngestBytes(other, []byte("the store's first document")); err != nil {
				t.Fatal(err)
			}
			if c.setup != nil {
				if err := c.setup(inner, scope); err != nil {
					t.Fatal(err)
				}
			}
			var changeErr error
			e.Arm(func() { changeErr = c.change(inner, scope) })
			b, _, err := s.IngestBytes(scope, []byte("a document"))
			if changeErr != nil {
				t.Fatal(changeErr)
			}
			if c.lands {
				if err != nil {
					t.Fatalf("ingest into a tenant provisioned meanwhile: %v", err)
				}
				if _, err := s.Stat(scope, b.ID); err != nil {
					t.Errorf("the document did not land: %v", err)
				}
				return
			}
			if !errors.Is(err, storage.ErrTenantNotWritable) {
				t.Errorf("ingest racing an erasure: %v, want ErrTenantNotWritable", err)
			}
			for _, cf := range storage.Families() {
				for kv := range inner.Scan(storage.TenantAll(scope, cf)) {
					t.Errorf("a row of the erasing tenant landed: %s %x", cf, kv.Key)
				}
			}
		})
	}
}
