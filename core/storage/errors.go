package storage

import "errors"

// Sentinel errors. Functions wrap them with context; test with errors.Is.
var (
	// ErrNilScope reports a tenant or organization id that is the nil UUID.
	// The nil scope is the reserved system namespace and cannot be a tenant.
	ErrNilScope = errors.New("nil tenant or organization id")

	// ErrWrongLength reports key bytes whose length does not match the
	// family's layout.
	ErrWrongLength = errors.New("wrong key length")

	// ErrBadUUID reports a scope with exactly one nil component: neither a
	// tenant scope nor the system scope.
	ErrBadUUID = errors.New("bad uuid")

	// ErrUnknownKind reports a discriminator byte (index kind, bitmap kind,
	// job state) outside its enumeration.
	ErrUnknownKind = errors.New("unknown kind")

	// ErrUnknownFamily reports a column family name or number that does not
	// exist.
	ErrUnknownFamily = errors.New("unknown column family")

	// ErrInvalidKey reports a zero Key, or one built from the zero
	// TenantScope. Engines return it instead of touching storage.
	ErrInvalidKey = errors.New("invalid key: zero value or built from a zero scope")

	// ErrInvalidRange reports a zero ScanRange, or one built from the zero
	// TenantScope. Engines return it instead of scanning.
	ErrInvalidRange = errors.New("invalid scan range: zero value or built from a zero scope")

	// ErrOutOfRange reports a cursor that does not lie inside the range it
	// should resume, including a cursor from another scope or family.
	ErrOutOfRange = errors.New("cursor outside the range")

	// ErrEmptyRange reports bounds that select no key at all.
	ErrEmptyRange = errors.New("empty range")

	// ErrNotConfined reports stored bounds that span more than one scope.
	ErrNotConfined = errors.New("bounds not confined to one scope")

	// ErrNotFound is returned by Get for an absent key.
	ErrNotFound = errors.New("not found")

	// ErrClosed is returned by every operation on a closed engine or
	// snapshot.
	ErrClosed = errors.New("engine closed")
)
