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
func ParseScope(s string) (scope storage.TenantScope, err error) {
	tenant, org, ok := strings.Cut(s, ":")
	if !ok {
		return scope, fmt.Errorf("scope %q: want TENANT:ORG, two UUIDs: %w", s, ErrBadScope)
	}
	t, err := uuid.Parse(tenant)
	if err != nil {
		return scope, fmt.Errorf("scope %q: tenant: %w: %w", s, ErrBadScope, err)
	}
	o, err := uuid.Parse(org)
	if err != nil {
		return scope, fmt.Errorf("scope %q: organization: %w: %w", s, ErrBadScope, err)
	}
	if scope, err = storage.NewTenantScope(t, o); err != nil {
		return scope, fmt.Errorf("scope %q: %w: %w", s, ErrBadScope, err)
	}
	return scope, nil
}

// FormatScope renders scope as ParseScope reads it: TENANT:ORG.
func FormatScope(scope storage.TenantScope) string {
	return scope.Tenant().String() + ":" + scope.Organization().String()
}

// The registry's types and errors, for the lifecycle's callers: the
// registry's facade is the lifecycle's alone.
type (
	// Tenant is one tenant of the registry.
	Tenant = tenants.Tenant
	// State is where a tenant is in its life.
	State = tenants.State
)

// The states.
const (
	Active    = tenants.Active
	Importing = tenants.Importing
	Erasing   = tenants.Erasing
	Erased    = tenants.Erased
)

// The registry's errors.
var (
	ErrNilScope        = tenants.ErrNilScope
	ErrExists          = tenants.ErrExists
	ErrNameTaken       = tenants.ErrNameTaken
	ErrInvalidName     = tenants.ErrInvalidName
	ErrUnknownTenant   = tenants.ErrUnknownTenant
	ErrBadTransition   = tenants.ErrBadTransition
	ErrCorruptRegistry = tenants.ErrCorrupt
)

// CheckName reports whether name is a display name the registry takes
// (tenants.CheckName), ErrInvalidName otherwise: a command checks it
// before it opens, or creates, a store.
func CheckName(name string) error { return tenants.CheckName(name) }

// Provision registers a new active tenant with a display name
// (tenants.Provision) and returns it.
func Provision(e storage.Engine, scope storage.TenantScope, name string) (Tenant, error) {
	if err := tenants.Provision(e, scope, name); err != nil {
		return Tenant{}, err
	}
	return tenants.Get(e, scope)
}

// Get returns the tenant of scope, or ErrUnknownTenant.
func Get(r storage.Reader, scope storage.TenantScope) (Tenant, error) { return tenants.Get(r, scope) }

// List returns every tenant of the registry, by name.
func List(r storage.Reader) ([]Tenant, error) { return tenants.List(r) }

// Lookup finds a tenant by "TENANT:ORG" or by display name. A scope the
// registry does not hold is returned with ok false and no error, so that
// rows written before the registry stay reachable by scope; a name the
// registry does not hold is an error (ErrBadScope and
// tenants.ErrUnknownTenant).
func Lookup(r storage.Reader, arg string) (t Tenant, ok bool, err error) {
	if !strings.Contains(arg, ":") {
		t, err := tenants.ByName(r, arg)
		switch {
		case errors.Is(err, ErrUnknownTenant):
			return Tenant{}, false, unknownNameError{arg}
		case err != nil:
			return Tenant{}, false, fmt.Errorf("look up %q: %w", arg, err)
		}
		return t, true, nil
	}
	s, err := ParseScope(arg)
	if err != nil {
		return Tenant{}, false, err
	}
	switch t, err := tenants.Get(r, s); {
	case errors.Is(err, tenants.ErrUnknownTenant):
		return Tenant{Scope: s}, false, nil
	case err != nil:
		return Tenant{}, false, err
	default:
		return t, true, nil
	}
}
