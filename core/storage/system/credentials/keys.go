package credentials

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// Create makes a new key for scope, labelled name, valid until expires
// (the zero time: forever), and returns it with its token. The token is
// returned here once and never again: the store keeps only its digest.
// The tenant must be active in the registry.
func Create(e storage.Engine, scope storage.TenantScope, name string, expires time.Time) (Key, string, error) {
	if e == nil {
		return Key{}, "", fmt.Errorf("create key: %w", storage.ErrNotOpen)
	}
	if scope.IsZero() {
		return Key{}, "", fmt.Errorf("create key: %w", storage.ErrNilScope)
	}
	if err := checkName(name); err != nil {
		return Key{}, "", fmt.Errorf("create key: %w", err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	if !expires.IsZero() && !expires.After(now) {
		return Key{}, "", fmt.Errorf("create key: %w: %s", ErrBadExpiry, expires.Format(time.RFC3339))
	}
	if err := activeTenant(e, scope); err != nil {
		return Key{}, "", fmt.Errorf("create key for %s: %w", scope, err)
	}
	tok, err := newToken()
	if err != nil {
		return Key{}, "", fmt.Errorf("create key: %w", err)
	}
	r := row{Key: Key{ID: tok.ID, Scope: scope, Name: name, Created: now, Expires: expires.UTC().Truncate(time.Microsecond)}, digest: tok.digest()}
	if err := writeVersion(e, r, now, true); err != nil {
		return Key{}, "", fmt.Errorf("create key for %s: %w", scope, err)
	}
	return r.Key, tok.reveal(), nil
}

// activeTenant returns ErrNotActive unless the registry holds scope as an
// active tenant.
func activeTenant(r storage.Reader, scope storage.TenantScope) error {
	t, err := tenants.Get(r, scope)
	switch {
	case errors.Is(err, tenants.ErrUnknownTenant):
		return fmt.Errorf("%w: unknown tenant", ErrNotActive)
	case err != nil:
		return err
	case t.State != tenants.Active:
		return fmt.Errorf("%w: the tenant is %s", ErrNotActive, t.State)
	}
	return nil
}

// writeVersion writes a version of r's key at transaction time at,
// durably; a first version requires that the key has no row yet. The
// batch is fenced on the registry row of the key's tenant
// (tenants.RequireWritable): the erasure of a tenant deletes its keys in
// its own batch, and a key created or revoked after it checked the
// tenant would otherwise land after that deletion, naming the erased
// tenant.
func writeVersion(e storage.Engine, r row, at time.Time, first bool) error {
	ts := storage.TimestampOf(at)
	k := storage.SystemScope{}.CredentialKey(r.ID, format, storage.MinTimestamp, ts)
	var b storage.Batch
	if first {
		b.RequireAbsent(k)
	}
	b.Put(k, encodeRow(r))
	if err := tenants.RequireWritable(e, &b, r.Scope); err != nil {
		return err
	}
	return tenants.Refused(e, r.Scope, e.WriteDurable(&b))
}

// latest returns the latest version of key id, or ErrUnknownKey.
func latest(r storage.Reader, id uuid.UUID) (row, error) {
	for kv, err := range r.Scan(storage.SystemScope{}.CredentialVersions(id)) {
		if err != nil {
			return row{}, err
		}
		return decodeRow(id, kv.Value)
	}
	return row{}, fmt.Errorf("key %s: %w", id, ErrUnknownKey)
}

// List returns every key, revoked and expired ones included, in key id
// order.
func List(r storage.Reader) ([]Key, error) {
	if r == nil {
		return nil, fmt.Errorf("list keys: %w", storage.ErrNotOpen)
	}
	var out []Key
	err := eachKey(r, func(k row) { out = append(out, k.Key) })
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return out, nil
}

// eachKey calls f with the latest version of every key.
func eachKey(r storage.Reader, f func(row)) error {
	prev := uuid.Nil
	for kv, err := range r.Scan(storage.SystemScope{}.Credentials()) {
		if err != nil {
			return err
		}
		if len(kv.Key) < storage.ScopeLen+16 {
			return fmt.Errorf("%w: a key of %d bytes", ErrCorrupt, len(kv.Key))
		}
		id := uuid.UUID(kv.Key[storage.ScopeLen : storage.ScopeLen+16])
		if id == prev {
			continue // an older version: the latest came first
		}
		prev = id
		k, err := decodeRow(id, kv.Value)
		if err != nil {
			return err
		}
		f(k)
	}
	return nil
}

// Revoke revokes key id: from its next request on, its token
// authenticates nothing. Revoking a revoked key does nothing.
func Revoke(e storage.Engine, id uuid.UUID) (Key, error) {
	if e == nil {
		return Key{}, fmt.Errorf("revoke key: %w", storage.ErrNotOpen)
	}
	r, err := latest(e, id)
	if err != nil {
		return Key{}, fmt.Errorf("revoke key: %w", err)
	}
	if !r.Revoked.IsZero() {
		return r.Key, nil
	}
	// The revocation is a later version than the creation, also if the
	// clock stepped back.
	r.Revoked = time.Now().UTC().Truncate(time.Microsecond)
	if !r.Revoked.After(r.Created) {
		r.Revoked = r.Created.Add(time.Microsecond)
	}
	if err := writeVersion(e, r, r.Revoked, false); err != nil {
		return Key{}, fmt.Errorf("revoke key %s: %w", id, err)
	}
	return r.Key, nil
}

// Authenticate returns the key that token belongs to if it authenticates
// at now: a well-formed token of a key that exists, whose digest matches
// (compared in constant time), not revoked, not expired, of an active
// tenant. Every refusal wraps ErrUnauthenticated; the text says why, for
// the operator's log, and never holds the secret.
func Authenticate(r storage.Reader, token string, now time.Time) (Key, error) {
	if r == nil {
		return Key{}, fmt.Errorf("authenticate: %w", storage.ErrNotOpen)
	}
	tok, err := ParseToken(token)
	if err != nil {
		return Key{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	k, err := latest(r, tok.ID)
	if errors.Is(err, ErrUnknownKey) {
		return Key{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	if err != nil {
		return Key{}, fmt.Errorf("authenticate key %s: %w", tok.ID, err)
	}
	want := tok.digest()
	switch {
	case subtle.ConstantTimeCompare(want[:], k.digest[:]) != 1:
		return Key{}, fmt.Errorf("%w: key %s: wrong secret", ErrUnauthenticated, k.ID)
	case !k.Revoked.IsZero():
		return Key{}, fmt.Errorf("%w: key %s: revoked", ErrUnauthenticated, k.ID)
	case !k.Expires.IsZero() && !now.Before(k.Expires):
		return Key{}, fmt.Errorf("%w: key %s: expired", ErrUnauthenticated, k.ID)
	}
	if err := activeTenant(r, k.Scope); errors.Is(err, ErrNotActive) {
		return Key{}, fmt.Errorf("%w: key %s: %w", ErrUnauthenticated, k.ID, err)
	} else if err != nil {
		return Key{}, fmt.Errorf("authenticate key %s: %w", k.ID, err)
	}
	return k.Key, nil
}

// AddTenantDeletion adds to b the deletion of every row of every key of
// scope, as read from r, and returns how many keys it deletes. A tenant
// erasure adds it to the batch that deletes the tenant's rows, so that the
// keys go in the same durable write.
func AddTenantDeletion(r storage.Reader, b *storage.Batch, scope storage.TenantScope) (int, error) {
	if r == nil {
		return 0, fmt.Errorf("delete keys of %s: %w", scope, storage.ErrNotOpen)
	}
	if scope.IsZero() {
		return 0, fmt.Errorf("delete keys: %w", storage.ErrNilScope)
	}
	n := 0
	err := eachKey(r, func(k row) {
		if k.Scope == scope {
			b.DeleteRange(storage.SystemScope{}.CredentialVersions(k.ID))
			n++
		}
	})
	if err != nil {
		return 0, fmt.Errorf("delete keys of %s: %w", scope, err)
	}
	return n, nil
}
