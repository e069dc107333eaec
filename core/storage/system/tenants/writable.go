package tenants

import (
	"bytes"
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
	_, err := requireWritable(r, b, scope)
	return err
}

// requireWritable is RequireWritable, returning the row the condition
// requires: nil for a scope the registry does not hold.
func requireWritable(r storage.Reader, b *storage.Batch, scope storage.TenantScope) ([]byte, error) {
	return requireState(r, b, scope, Active)
}

// requireState makes b conditional on the registry row of scope holding
// still what r holds now, and fails with ErrNotWritable unless that row
// says the tenant is in state want. Only a writer of Active tenants may
// write a scope the registry does not hold, on the condition that it
// still holds none. It returns the row the condition requires.
func requireState(r storage.Reader, b *storage.Batch, scope storage.TenantScope, want State) ([]byte, error) {
	t, v, err := get(r, scope)
	k := storage.SystemScope{}.TenantRecordKey(storage.TenantRecordID(scope))
	switch {
	case errors.Is(err, ErrUnknownTenant) && want == Active:
		b.RequireAbsent(k)
	case err != nil:
		return nil, fmt.Errorf("check tenant %s: %w", scope, err)
	case t.State != want:
		return nil, fmt.Errorf("tenant %s is %s: %w", scope, t.State, ErrNotWritable)
	default:
		b.RequireValue(k, v)
	}
	return v, b.Err()
}

// maxFencedAttempts bounds the attempts of WriteFenced that changes of
// the registry rows keep refusing, each leaving the tenants writable.
const maxFencedAttempts = 100

// WriteFenced writes b, durably when asked, fenced on the registry row of
// every tenant it writes rows of (RequireWritable, Batch.TenantScopes). A
// change of a row that leaves its tenant writable (a scope provisioned
// meanwhile, an import begun and undone) refuses the attempt, and b is
// written again on the rows as they are now; a tenant no longer writable
// is ErrNotWritable; a conflict on a condition of b's own (the rows
// unchanged) is returned. b itself is not changed.
func WriteFenced(e storage.Engine, durable bool, b *storage.Batch) error {
	if e == nil {
		return fmt.Errorf("write fenced: %w", storage.ErrNotOpen)
	}
	write := e.Write
	if durable {
		write = e.WriteDurable
	}
	scopes := b.TenantScopes()
	rows := make([][]byte, len(scopes))
	for range maxFencedAttempts {
		var fenced storage.Batch
		fenced.Append(b)
		for i, scope := range scopes {
			v, err := requireWritable(e, &fenced, scope)
			if err != nil {
				return err
			}
			rows[i] = v
		}
		err := write(&fenced)
		if !errors.Is(err, storage.ErrConflict) {
			return err
		}
		moved, merr := rowsMoved(e, scopes, rows)
		if merr != nil || !moved {
			return errors.Join(err, merr)
		}
	}
	return fmt.Errorf("write fenced: %w", storage.ErrOvertaken)
}

// rowsMoved reports whether the registry row of any of scopes differs
// from the one in rows.
func rowsMoved(r storage.Reader, scopes []storage.TenantScope, rows [][]byte) (bool, error) {
	for i, scope := range scopes {
		_, v, err := get(r, scope)
		if err != nil && !errors.Is(err, ErrUnknownTenant) {
			return false, fmt.Errorf("check tenant %s: %w", scope, err)
		}
		if !bytes.Equal(v, rows[i]) {
			return true, nil
		}
	}
	return false, nil
}

// RequireImporting makes b conditional on the registry row of scope still
// holding, when the engine applies b, what r holds now, and fails with
// ErrNotWritable unless that row says the tenant is Importing. The
// batches of an import carry it: an erasure may begin while an import
// runs (Importing may become Erasing), and the import's later batches are
// then refused rather than landing after the erasure's deletion.
func RequireImporting(r storage.Reader, b *storage.Batch, scope storage.TenantScope) error {
	_, err := requireState(r, b, scope, Importing)
	return err
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
