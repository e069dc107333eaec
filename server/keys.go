package server

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/credentials"
	"telha.dev/lifecycle"
)

// Key is what an operator sees of an API key: never its token.
type Key struct {
	ID      uuid.UUID
	Scope   storage.TenantScope
	Name    string
	Created time.Time
	Expires time.Time // zero: never
	Revoked time.Time // zero: not revoked
}

// Errors of the key functions, for the operator CLI's exit status: each
// is a refusal of the operator's input.
var (
	// ErrUnknownTenant reports a -scope the tenant registry does not hold.
	ErrUnknownTenant = errors.New("unknown tenant")
	// ErrBadKey reports a key the store refuses: a tenant that is not
	// active, a bad label or expiry, a key id with no key.
	ErrBadKey = errors.New("bad key")
)

func keyOf(k credentials.Key) Key {
	return Key{ID: k.ID, Scope: k.Scope, Name: k.Name, Created: k.Created, Expires: k.Expires, Revoked: k.Revoked}
}

// refused marks the facade's refusals of the operator's input as ErrBadKey.
func refused(err error) error {
	for _, e := range []error{credentials.ErrNotActive, credentials.ErrBadName, credentials.ErrBadExpiry, credentials.ErrUnknownKey, storage.ErrNilScope} {
		if errors.Is(err, e) {
			return fmt.Errorf("%w: %w", ErrBadKey, err)
		}
	}
	return err
}

// CreateKey creates an API key for the tenant named by tenant (TENANT:ORG,
// or a registered tenant's display name), labelled name, expiring after
// ttl (0: never), and returns it with its token: the only time the token
// is shown.
func CreateKey(e storage.Engine, tenant, name string, ttl time.Duration) (Key, string, error) {
	t, known, err := lifecycle.Lookup(e, tenant)
	if err != nil {
		return Key{}, "", fmt.Errorf("create key: %w", err)
	}
	if !known {
		return Key{}, "", fmt.Errorf("create key: %w: %s", ErrUnknownTenant, tenant)
	}
	var expires time.Time
	switch {
	case ttl < 0:
		return Key{}, "", fmt.Errorf("create key: %w: a negative expiry", ErrBadKey)
	case ttl > 0:
		expires = time.Now().Add(ttl)
	}
	k, tok, err := credentials.Create(e, t.Scope, name, expires)
	if err != nil {
		return Key{}, "", refused(err)
	}
	return keyOf(k), tok, nil
}

// ListKeys returns every key, revoked and expired ones included.
func ListKeys(r storage.Reader) ([]Key, error) {
	ks, err := credentials.List(r)
	if err != nil {
		return nil, err
	}
	out := make([]Key, len(ks))
	for i, k := range ks {
		out[i] = keyOf(k)
	}
	return out, nil
}

// RevokeKey revokes the key with id id (its public id, as ListKeys shows
// it): its token authenticates no request from the next one on.
func RevokeKey(e storage.Engine, id string) (Key, error) {
	kid, err := uuid.Parse(id)
	if err != nil {
		return Key{}, fmt.Errorf("revoke key: %w: %q is not a key id", ErrBadKey, id)
	}
	k, err := credentials.Revoke(e, kid)
	if err != nil {
		return Key{}, refused(err)
	}
	return keyOf(k), nil
}
