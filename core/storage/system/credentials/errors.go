package credentials

import (
	"errors"
	"fmt"

	"telha.dev/core/storage"
)

// Errors of the facade. Functions wrap them with context.
var (
	// ErrMalformed reports a string that is not a token.
	ErrMalformed = errors.New("malformed token")

	// ErrUnauthenticated reports a token that authenticates nothing: of
	// no key, of a revoked or expired key, of a tenant that is not
	// active, or whose secret does not match. It says which only in the
	// wrapping text, for the operator's log, never to the caller.
	ErrUnauthenticated = errors.New("unauthenticated")

	// ErrUnknownKey reports a revocation of a key id with no row.
	ErrUnknownKey = errors.New("unknown key")

	// ErrNotActive reports a key asked for a tenant that the registry
	// does not hold as active.
	ErrNotActive = errors.New("tenant not active")

	// ErrBadName reports a label longer than MaxNameLen or with control
	// characters.
	ErrBadName = errors.New("bad key name")

	// ErrBadExpiry reports an expiry that is not after the creation.
	ErrBadExpiry = errors.New("expiry not in the future")

	// ErrCorrupt reports a credential row that does not decode. It wraps
	// storage.ErrCorrupt.
	ErrCorrupt = fmt.Errorf("bad credential row: %w", storage.ErrCorrupt)
)
