package auth

import (
	"context"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/credentials"
)

// Principal is who a request acts for: one API key of one tenant. Its
// zero value holds no scope and serves nothing.
type Principal struct {
	key     credentials.Key
	checked time.Time // when the store last vouched for the key
}

// Scope returns the tenant scope of the principal, the only scope a
// handler may use.
func (p Principal) Scope() storage.TenantScope { return p.key.Scope }

// KeyID returns the public id of the principal's key, for logs.
func (p Principal) KeyID() uuid.UUID { return p.key.ID }

// Checked returns when the store last vouched for the principal's key: a
// call that runs long after it (its body was slow to arrive, or it waited
// for its tenant's turn) checks again before it acts.
func (p Principal) Checked() time.Time { return p.checked }

// principalKey is the context key of the principal.
type principalKey struct{}

// withPrincipal returns ctx carrying p.
func withPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// From returns the principal of a request's context, and false if the
// request was not authenticated (a handler reached without the
// interceptor or the middleware): such a handler must refuse.
func From(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok && !p.key.Scope.IsZero()
}
