package storagetest

import (
	"fmt"
	"strings"
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

// FormatScope renders s as ParseScope reads it, TENANT:ORG: how a test
// names a tenant to a child process (StartChild).
func FormatScope(s storage.TenantScope) string {
	return s.Tenant().String() + ":" + s.Organization().String()
}

// ParseScope parses a scope that FormatScope rendered.
func ParseScope(s string) (storage.TenantScope, error) {
	tenant, org, _ := strings.Cut(s, ":")
	t, err := uuid.Parse(tenant)
	if err != nil {
		return storage.TenantScope{}, fmt.Errorf("parse scope %q: %w", s, err)
	}
	o, err := uuid.Parse(org)
	if err != nil {
		return storage.TenantScope{}, fmt.Errorf("parse scope %q: %w", s, err)
	}
	return storage.NewTenantScope(t, o)
}
