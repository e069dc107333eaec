package tenants

import (
	"errors"
	"fmt"

	"telha.dev/core/storage"
)

// Errors of the registry. Functions wrap them with context.
var (
	// ErrNilScope reports a scope with a nil tenant or organization id
	// (the zero TenantScope): provisioning rejects nil UUIDs explicitly,
	// so that no tenant can ever collide with the all-zero system prefix.
	// It is storage.ErrNilScope.
	ErrNilScope = storage.ErrNilScope

	// ErrExists reports a provisioning of a scope the registry holds, in
	// any state: an erased scope is never provisioned again.
	ErrExists = errors.New("tenant already provisioned")

	// ErrNameTaken reports a provisioning under a display name that
	// another tenant (active or erasing) holds.
	ErrNameTaken = errors.New("tenant name taken")

	// ErrInvalidName reports a display name outside the rules of
	// CheckName.
	ErrInvalidName = errors.New("invalid tenant name")

	// ErrUnknownTenant reports a scope or name the registry does not hold.
	ErrUnknownTenant = errors.New("unknown tenant")

	// ErrNotWritable reports a write to a tenant that is not active
	// (RequireWritable). It is storage.ErrTenantNotWritable.
	ErrNotWritable = storage.ErrTenantNotWritable

	// ErrBadTransition reports a state change the lifecycle does not
	// allow, or an invalid state.
	ErrBadTransition = errors.New("illegal tenant state transition")

	// ErrCorrupt reports a registry row that does not decode or whose
	// value contradicts its key. It wraps storage.ErrCorrupt.
	ErrCorrupt = fmt.Errorf("bad tenant registry row: %w", storage.ErrCorrupt)
)
