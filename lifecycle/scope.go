package lifecycle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// ParseScope parses "TENANT:ORG", two UUIDs, into a tenant scope. A nil
// UUID is refused (storage.ErrNilScope): no tenant has it.
func ParseScope(s string) (storage.TenantScope, error) {
	tenant, org, ok := strings.Cut(s, ":")
	if !ok {
		return storage.TenantScope{}, fmt.Errorf("scope %q: want TENANT:ORG, two UUIDs: %w", s, ErrBadScope)
	}
	t, err := uuid.Parse(tenant)
	if err != nil {
		return storage.TenantScope{}, fmt.Errorf("scope %q: tenant: %w: %w", s, ErrBadScope, err)
	}
	o, err := uuid.Parse(org)
	if err != nil {
		return storage.TenantScope{}, fmt.Errorf("scope %q: organization: %w: %w", s, ErrBadScope, err)
	}
	scope, err := storage.NewTenantScope(t, o)
	if err != nil {
		return storage.TenantScope{}, fmt.Errorf("scope %q: %w: %w", s, ErrBadScope, err)
	}
	return scope, nil
}

// FormatScope renders scope as ParseScope reads it: TENANT:ORG.
func FormatScope(scope storage.TenantScope) string {
	return scope.Tenant().String() + ":" + scope.Organization().String()
}

// Provision registers a new active tenant (tenants.Provision): the scope
// as "TENANT:ORG" and a display name.
func Provision(e storage.Engine, scope, name string) (tenants.Tenant, error) {
	s, err := ParseScope(scope)
	if err != nil {
		return tenants.Tenant{}, fmt.Errorf("provision: %w", err)
	}
	if err := tenants.Provision(e, s, name); err != nil {
		return tenants.Tenant{}, err
	}
	return tenants.Get(e, s)
}

// List returns every tenant of the registry, by name.
func List(r storage.Reader) ([]tenants.Tenant, error) { return tenants.List(r) }

// Lookup finds a tenant by "TENANT:ORG" or by display name. A scope the
// registry does not hold is returned with ok false and no error, so that
// rows written before the registry stay reachable by scope; a name the
// registry does not hold is an error (ErrBadScope and
// tenants.ErrUnknownTenant).
func Lookup(r storage.Reader, arg string) (t tenants.Tenant, ok bool, err error) {
	if !strings.Contains(arg, ":") {
		t, err := tenants.ByName(r, arg)
		if err != nil {
			return tenants.Tenant{}, false, fmt.Errorf("look up %q: %w: %w", arg, ErrBadScope, err)
		}
		return t, true, nil
	}
	s, err := ParseScope(arg)
	if err != nil {
		return tenants.Tenant{}, false, err
	}
	switch t, err := tenants.Get(r, s); {
	case errors.Is(err, tenants.ErrUnknownTenant):
		return tenants.Tenant{Scope: s}, false, nil
	case err != nil:
		return tenants.Tenant{}, false, err
	default:
		return t, true, nil
	}
}
