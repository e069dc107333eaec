package tenants

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// The registry is read whole for a name: it holds one row of about a
// hundred bytes per tenant, so a deployment of a hundred thousand tenants
// reads some ten megabytes to provision one more. Display names are kept
// unique by that scan, fenced by a counter of the deployment
// (storage.CounterTenants): every provisioning and state change reads the
// counter before it reads the registry, and advances it in the batch that
// writes the row, on the condition that it still holds what was read. Of
// two processes that provision one name (or one scope) at once, on one
// etcd cluster, only the first batch lands; the other reads the registry
// again and finds the name taken.

// registryMu serializes the read-check-write of Provision and SetState
// within the process, so that its own writes do not overtake each other.
var registryMu sync.Mutex

// registryCounter reads the deployment's counter of the registry.
func registryCounter(r storage.Reader) ([]storage.Counter, error) {
	c, err := storage.SystemScope{}.ReadCounter(r, storage.CounterTenants, 0)
	return []storage.Counter{c}, err
}

// write writes, durably, the row that decide returns, read from the
// registry as it is after the counter was read, with the registry's
// counter advanced: decide runs again when another process changed the
// registry meanwhile (storage.WriteCounted).
func write(e storage.Engine, decide func() (Tenant, error)) error {
	_, err := storage.WriteCounted(e, true, registryCounter, func(b *storage.Batch) error {
		t, err := decide()
		if err != nil {
			return err
		}
		addRecord(b, t)
		return nil
	})
	return err
}

// addRecord adds the row of t to b.
func addRecord(b *storage.Batch, t Tenant) {
	b.Put(storage.SystemScope{}.TenantRecordKey(storage.TenantRecordID(t.Scope)), encodeRecord(t))
}

// now is the clock of the registry's times.
var now = time.Now

// Provision registers a new active tenant with scope and display name.
// It refuses the zero scope (ErrNilScope: a scope with a nil tenant or
// organization id), a name outside CheckName's rules (ErrInvalidName), a
// scope the registry holds in any state (ErrExists), and a name another
// tenant holds (ErrNameTaken). The row is written durably.
func Provision(e storage.Engine, scope storage.TenantScope, name string) error {
	if e == nil {
		return fmt.Errorf("provision tenant %q: %w", name, storage.ErrNotOpen)
	}
	if scope.IsZero() || scope.Organization() == uuid.Nil {
		return fmt.Errorf("provision tenant %q: %w", name, ErrNilScope)
	}
	if err := CheckName(name); err != nil {
		return fmt.Errorf("provision tenant %s: %w", scope, err)
	}

	registryMu.Lock()
	defer registryMu.Unlock()
	err := write(e, func() (Tenant, error) {
		all, err := List(e)
		if err != nil {
			return Tenant{}, err
		}
		for _, t := range all {
			switch {
			case t.Scope == scope:
				return Tenant{}, fmt.Errorf("as %q: %s as %q: %w", name, t.State, t.Name, ErrExists)
			case t.Name == name:
				return Tenant{}, fmt.Errorf("as %q: held by %s: %w", name, t.Scope, ErrNameTaken)
			}
		}
		at := now().UTC()
		return Tenant{Scope: scope, Name: name, State: Active, Provisioned: at, Changed: at}, nil
	})
	if err != nil {
		return fmt.Errorf("provision tenant %s: %w", scope, err)
	}
	return nil
}

// Get returns the registry row of scope, or ErrUnknownTenant.
func Get(r storage.Reader, scope storage.TenantScope) (Tenant, error) {
	t, _, err := get(r, scope)
	if err != nil {
		return Tenant{}, fmt.Errorf("get tenant %s: %w", scope, err)
	}
	return t, nil
}

// get returns the registry row of scope, decoded and as stored, or
// ErrUnknownTenant.
func get(r storage.Reader, scope storage.TenantScope) (Tenant, []byte, error) {
	if r == nil {
		return Tenant{}, nil, storage.ErrNotOpen
	}
	if scope.IsZero() {
		return Tenant{}, nil, ErrNilScope
	}
	k := storage.SystemScope{}.TenantRecordKey(storage.TenantRecordID(scope))
	v, err := r.Get(k)
	if errors.Is(err, storage.ErrNotFound) {
		return Tenant{}, nil, ErrUnknownTenant
	}
	if err != nil {
		return Tenant{}, nil, err
	}
	t, err := decodeRow(storage.KV{Key: k.Bytes(), Value: v})
	if err != nil {
		return Tenant{}, nil, err
	}
	if t.Scope != scope {
		return Tenant{}, nil, fmt.Errorf("row holds %s: %w", t.Scope, ErrCorrupt)
	}
	return t, v, nil
}

// ByName returns the tenant with display name name, or ErrUnknownTenant.
// Erased tenants have no name.
func ByName(r storage.Reader, name string) (Tenant, error) {
	if err := CheckName(name); err != nil {
		return Tenant{}, fmt.Errorf("find tenant: %w", err)
	}
	all, err := List(r)
	if err != nil {
		return Tenant{}, fmt.Errorf("find tenant %q: %w", name, err)
	}
	for _, t := range all {
		if t.Name == name {
			return t, nil
		}
	}
	return Tenant{}, fmt.Errorf("find tenant %q: %w", name, ErrUnknownTenant)
}

// List returns every tenant of the registry, erased ones included, by
// name (erased ones, which have none, first) and then scope. A row that
// does not decode fails the whole list with ErrCorrupt, naming the row.
func List(r storage.Reader) ([]Tenant, error) {
	if r == nil {
		return nil, fmt.Errorf("list tenants: %w", storage.ErrNotOpen)
	}
	var out []Tenant
	for kv, err := range r.Scan(storage.SystemScope{}.TenantRecords()) {
		if err != nil {
			return nil, fmt.Errorf("list tenants: %w", err)
		}
		t, err := decodeRow(kv)
		if err != nil {
			return nil, fmt.Errorf("list tenants: %w", err)
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Tenant) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Scope.String(), b.Scope.String()))
	})
	return out, nil
}

// SetState moves the tenant of scope to state next, durably (see
// State.canBecome for the changes allowed). Any other change, or an
// invalid state, fails with ErrBadTransition and writes nothing; an
// unknown scope fails with ErrUnknownTenant. Moving to Erased drops the
// display name.
func SetState(e storage.Engine, scope storage.TenantScope, next State) error {
	if e == nil {
		return fmt.Errorf("set tenant %s %s: %w", scope, next, storage.ErrNotOpen)
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	err := write(e, func() (Tenant, error) { return changed(e, scope, next) })
	if err != nil {
		return fmt.Errorf("set tenant %s %s: %w", scope, next, err)
	}
	return nil
}

// AddState adds to b the change of the tenant of scope to state next, as
// read from r, with the checks of SetState, and the registry's counter
// advanced on the condition that it still holds what was read: a caller
// whose last batch of work must land with the change (an import's last
// rows and the tenant active again) writes both in one batch, which fails
// with storage.ErrConflict and writes nothing if another process changed
// the registry meanwhile. Nothing is written if b is not.
func AddState(r storage.Reader, b *storage.Batch, scope storage.TenantScope, next State) error {
	if r == nil {
		return fmt.Errorf("set tenant %s %s: %w", scope, next, storage.ErrNotOpen)
	}
	registryMu.Lock()
	defer registryMu.Unlock()
	cs, err := registryCounter(r)
	if err == nil {
		var t Tenant
		if t, err = changed(r, scope, next); err == nil {
			addRecord(b, t)
			b.AdvanceCounter(cs[0], cs[0].Value()+1)
			err = b.Err()
		}
	}
	if err != nil {
		return fmt.Errorf("set tenant %s %s: %w", scope, next, err)
	}
	return nil
}

// changed returns the row of the tenant of scope, read from r, moved to
// state next, or ErrBadTransition if it may not move there.
func changed(r storage.Reader, scope storage.TenantScope, next State) (Tenant, error) {
	t, err := Get(r, scope)
	if err != nil {
		return Tenant{}, err
	}
	if !next.Valid() || !t.State.canBecome(next) {
		return Tenant{}, fmt.Errorf("from %s: %w", t.State, ErrBadTransition)
	}
	// A clock that went back does not date the change before the last.
	t.State, t.Changed = next, latest(now().UTC(), t.Changed)
	if next == Erased {
		t.Name = ""
	}
	return t, nil
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
