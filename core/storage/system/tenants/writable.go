package tenants

import (
	"errors"
	"fmt"

	"telha.dev/core/storage"
)

// RequireWritable makes b conditional on the registry row of scope still
// holding, when the engine applies b, what r holds now, and fails with
// ErrNotWritable if that row says the tenant is not Active. Every write a
// subsystem makes to a tenant carries it, so that a write checked before
// an import or an erasure of its tenant began, in this process or in any
// other on the same store, is refused (storage.ErrConflict) rather than
// landing among the imported rows or after the erasure's deletion: the
// change of state rewrites the row before anything else. The subsystem
// then checks again and gets ErrNotWritable.
//
// A scope the registry does not hold (an embedded store that never
// provisioned it) is writable while it holds no row: the condition is
// that it still holds none. An erasure of such a scope writes no row, so
// for it the condition fences nothing; provision the tenants that an
// erasure must fence.
func RequireWritable(r storage.Reader, b *storage.Batch, scope storage.TenantScope) error {
	t, v, err := get(r, scope)
	k := storage.SystemScope{}.TenantRecordKey(storage.TenantRecordID(scope))
	switch {
	case errors.Is(err, ErrUnknownTenant):
		b.RequireAbsent(k)
	case err != nil:
		return fmt.Errorf("check tenant %s: %w", scope, err)
	case t.State != Active:
		return fmt.Errorf("tenant %s is %s: %w", scope, t.State, ErrNotWritable)
	default:
		b.RequireValue(k, v)
	}
	return b.Err()
}

// Refused returns err, unless err is the storage.ErrConflict of a batch
// that RequireWritable fenced and the tenant of scope is no longer
// writable: then the ErrNotWritable that says why the batch was refused,
// so that a caller that makes its write again on a conflict stops there.
func Refused(r storage.Reader, scope storage.TenantScope, err error) error {
	if !errors.Is(err, storage.ErrConflict) {
		return err
	}
	if t, _, gerr := get(r, scope); gerr == nil && t.State != Active {
		return fmt.Errorf("tenant %s became %s: %w", scope, t.State, ErrNotWritable)
	}
	return err
}
