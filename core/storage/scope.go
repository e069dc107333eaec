package storage

import (
	"fmt"

	"github.com/google/uuid"
)

// ScopeLen is the length of the scope prefix every key starts with:
// [tenant id 16][organization id 16]. The RocksDB prefix extractor is fixed
// to this length.
const ScopeLen = 32

// TenantScope is one tenant's 32-byte key prefix. Its fields are unexported so
// that the only way to make one is NewTenantScope, which rejects the nil
// UUID: a tenant scope can never equal the all-zero system prefix.
//
// The zero TenantScope is not a scope. Keys and ranges built from it are
// invalid, and engines reject them.
//
//telha:opaque use storage.NewTenantScope
//telha:credential take the scope from the request's principal, which the authentication package makes from the credential
type TenantScope struct {
	p [ScopeLen]byte // [tenant id 16][organization id 16]
}

// NewTenantScope returns the scope of one tenant within one organization. It
// returns ErrNilScope if either id is nil.
func NewTenantScope(tenant, organization uuid.UUID) (TenantScope, error) {
	if tenant == uuid.Nil || organization == uuid.Nil {
		return TenantScope{}, fmt.Errorf("new tenant scope %s/%s: %w", tenant, organization, ErrNilScope)
	}
	var s TenantScope
	copy(s.p[0:16], tenant[:])
	copy(s.p[16:32], organization[:])
	return s, nil
}

// Tenant returns the tenant id.
func (s TenantScope) Tenant() uuid.UUID { return uuid.UUID(s.p[0:16]) }

// Organization returns the organization id.
func (s TenantScope) Organization() uuid.UUID { return uuid.UUID(s.p[16:32]) }

// IsZero reports whether s is the zero value, which is not a scope.
func (s TenantScope) IsZero() bool { return uuid.UUID(s.p[0:16]) == uuid.Nil }

// String renders the scope as tenant/organization.
func (s TenantScope) String() string {
	if s.IsZero() {
		return "invalid(zero TenantScope)"
	}
	return s.Tenant().String() + "/" + s.Organization().String()
}

// SystemScope is the reserved system namespace: the all-zero 32-byte prefix
// that holds deployment-global rows (system jobs, the embedding-model
// registry) and sorts first in every family. It is the only producer of that
// prefix. Code outside the authority tree reaches system rows only through
// the narrow facades under telha.dev/core/storage/system.
//
//telha:restricted system use a TenantScope from storage.NewTenantScope; system rows are reached only through the facades under telha.dev/core/storage/system
type SystemScope struct{}

// isTenantPrefix reports whether the 32 bytes p are a tenant scope: both
// the tenant and the organization id set. A half-nil prefix is neither a
// tenant nor the system scope.
func isTenantPrefix(p []byte) bool {
	return uuid.UUID(p[0:16]) != uuid.Nil && uuid.UUID(p[16:ScopeLen]) != uuid.Nil
}

// isSystemPrefix reports whether the 32 bytes p are the all-zero prefix of
// the system scope.
func isSystemPrefix(p []byte) bool {
	return uuid.UUID(p[0:16]) == uuid.Nil && uuid.UUID(p[16:ScopeLen]) == uuid.Nil
}

// KeyScope is the scope read out of key bytes by a decoder. It may be the
// system scope (both ids nil). It exists for forensics and validation only:
// no constructor accepts it, so decoded bytes cannot become a key or a range.
type KeyScope struct {
	Tenant       uuid.UUID
	Organization uuid.UUID
}

// IsSystem reports whether the key lies in the reserved system namespace.
func (s KeyScope) IsSystem() bool { return s.Tenant == uuid.Nil && s.Organization == uuid.Nil }

// Is reports whether the decoded scope is the tenant scope t.
func (s KeyScope) Is(t TenantScope) bool {
	return !t.IsZero() && s.Tenant == t.Tenant() && s.Organization == t.Organization()
}

// String renders "system" or tenant/organization.
func (s KeyScope) String() string {
	if s.IsSystem() {
		return "system"
	}
	return s.Tenant.String() + "/" + s.Organization.String()
}
