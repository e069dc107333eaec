package storagetest

import (
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// TenantScope returns a new tenant scope of two UUIDv7 ids, as tenant
// provisioning makes them.
func TenantScope(t testing.TB) storage.TenantScope {
	t.Helper()
	s, err := storage.NewTenantScope(newID(t), newID(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TenantScopes returns n distinct new tenant scopes.
func TenantScopes(t testing.TB, n int) []storage.TenantScope {
	t.Helper()
	out := make([]storage.TenantScope, n)
	for i := range out {
		out[i] = TenantScope(t)
	}
	return out
}

func newID(t testing.TB) uuid.UUID {
	t.Helper()
	id, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// ID returns a fixed, non-nil id for n, so that a test can name the same
// logical ids in several tenants and read them in failure messages.
func ID(n int) uuid.UUID {
	var id uuid.UUID
	id[0] = 0x01
	id[8] = byte(n >> 24)
	id[9] = byte(n >> 16)
	id[10] = byte(n >> 8)
	id[11] = byte(n)
	return id
}
