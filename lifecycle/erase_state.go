package lifecycle

import (
	"errors"
	"fmt"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// The registry's state follows an erasure: Erasing before anything is
// deleted, Erased once the verification scan counted zero. A scope the
// registry does not hold (rows written before it existed, or by a program
// that never provisioned) is erased all the same: the ledger records it.

// markErasing moves scope to Erasing, unless the registry lacks it or
// has it erased already (an erasure run again).
func markErasing(e storage.Engine, scope storage.TenantScope) error {
	t, err := tenants.Get(e, scope)
	switch {
	case errors.Is(err, tenants.ErrUnknownTenant):
		return nil
	case err != nil:
		return fmt.Errorf("mark erasing: %w", err)
	case t.State == tenants.Erased:
		return nil
	}
	if err := tenants.SetState(e, scope, tenants.Erasing); err != nil {
		return fmt.Errorf("mark erasing: %w", err)
	}
	return nil
}

// markErased moves scope to Erased, through Erasing if it is still Active
// or Importing (a restored store whose checkpoint predates the erasure),
// unless the registry lacks it or has it erased already.
func markErased(e storage.Engine, scope storage.TenantScope) error {
	t, err := tenants.Get(e, scope)
	switch {
	case errors.Is(err, tenants.ErrUnknownTenant):
		return nil
	case err != nil:
		return fmt.Errorf("mark erased: %w", err)
	case t.State == tenants.Erased:
		return nil
	case t.State == tenants.Active, t.State == tenants.Importing:
		if err := tenants.SetState(e, scope, tenants.Erasing); err != nil {
			return fmt.Errorf("mark erased: %w", err)
		}
	}
	if err := tenants.SetState(e, scope, tenants.Erased); err != nil {
		return fmt.Errorf("mark erased: %w", err)
	}
	return nil
}

// leaving reports whether the registry has scope erasing or erased.
func leaving(r storage.Reader, scope storage.TenantScope) bool {
	t, err := tenants.Get(r, scope)
	return err == nil && (t.State == tenants.Erasing || t.State == tenants.Erased)
}

// tenantsIn returns the tenants the registry has in state.
func tenantsIn(r storage.Reader, state tenants.State) ([]storage.TenantScope, error) {
	all, err := tenants.List(r)
	if err != nil {
		return nil, fmt.Errorf("list tenants %s: %w", state, err)
	}
	var out []storage.TenantScope
	for _, t := range all {
		if t.State == state {
			out = append(out, t.Scope)
		}
	}
	return out, nil
}
