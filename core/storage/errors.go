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

	// ErrHalfNilScope reports key bytes or stored bounds whose scope has
	// exactly one nil id: neither a tenant scope nor the system scope.
	ErrHalfNilScope = errors.New("half-nil scope: one of the tenant and organization ids is nil")

	// ErrUnknownKind reports a discriminator byte (index kind, bitmap kind,
	// job state) outside its enumeration.
	ErrUnknownKind = errors.New("unknown kind")

	// ErrUnknownFamily reports a column family name or number that does not
	// exist.
	ErrUnknownFamily = errors.New("unknown column family")

	// ErrNotKeyedByEntity reports a family whose keys do not start with an
	// entity id, asked for by entity (see ColumnFamily.KeyedByEntity).
	ErrNotKeyedByEntity = errors.New("column family not keyed by entity")

	// ErrInvalidKey reports a Key that Key.Valid refuses: the zero Key, one
	// built from the zero TenantScope, one whose constructor refused its
	// arguments (an unknown job state, the reserved slot), or one changed
	// after it was built. Engines return it instead of touching storage.
	ErrInvalidKey = errors.New("invalid key: zero, built from the zero scope or from refused arguments, or changed after it was built")

	// ErrInvalidRange reports a ScanRange that ScanRange.Valid refuses: the
	// zero ScanRange, one built from the zero TenantScope or from an unknown
	// family or job state, or one whose bounds were changed after it was
	// built. Engines return it instead of scanning.
	ErrInvalidRange = errors.New("invalid scan range: zero, built from the zero scope or from refused arguments, or changed after it was built")

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
	// snapshot, and by a scan whose engine or snapshot closes under it.
	ErrClosed = errors.New("engine closed")

	// ErrNotOpen is returned by every operation on an engine or snapshot
	// that was never opened: a nil pointer, or the zero value of a type
	// whose zero value is not a working engine.
	ErrNotOpen = errors.New("engine not open")

	// ErrNilBatch is returned by Write and WriteDurable for a nil *Batch,
	// and by its Err method.
	ErrNilBatch = errors.New("nil batch")

	// ErrRangeOverlap reports a batch that would put a key inside a range
	// it deletes (see Batch).
	ErrRangeOverlap = errors.New("batch puts a key inside a range it deletes")

	// ErrConflict reports a conditional batch (Batch.RequireAbsent,
	// RequireValue) refused because a condition did not hold when the
	// engine came to apply it: nothing of the batch was applied. Read
	// again and decide again.
	ErrConflict = errors.New("conflict: a condition of the batch does not hold")

	// ErrTenantNotWritable reports a write refused because its tenant's
	// registry row says the tenant is not active: it is being imported
	// or erased, or was erased. A write that checked its tenant before
	// the row changed is refused all the same, by the condition on the
	// row it carries (see tenants.RequireWritable).
	ErrTenantNotWritable = errors.New("tenant not writable: being imported or erased, or erased")

	// ErrStale reports a read of a state the engine no longer keeps: a
	// snapshot, or a scan paused in its loop body, older than the history
	// the engine retains (another writer compacted it away). Nothing is
	// wrong with the store; what was being decided from that state must be
	// read and decided again.
	ErrStale = errors.New("read of a state the engine no longer keeps")

	// ErrValueTooLarge reports a value longer than MaxValueLen.
	ErrValueTooLarge = errors.New("value too large")

	// ErrCorrupt reports stored data that failed an integrity check: a
	// checksum, a length, a sequence, a key that does not decode. Engines
	// wrap it with the file, row or record at fault.
	ErrCorrupt = errors.New("corrupt store")

	// ErrNoSpace reports a write refused because the store's device is
	// full. Nothing acknowledged is lost; writes succeed again once space
	// is freed (for some engines, after a reopen).
	ErrNoSpace = errors.New("no space left on the store's device")
)

// MaxValueLen is the longest value an engine stores: every engine accepts
// values up to this length and refuses longer ones with ErrValueTooLarge,
// rather than truncating them or dropping them from a batch.
const MaxValueLen = 1<<31 - 1
