package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Kind is what an entry erased.
type Kind uint8

// The kinds of erasure. The zero value is not a kind.
const (
	KindTenant Kind = 1 // every row of a tenant
	KindEntity Kind = 2 // every row of one entity of a tenant
)

// Valid reports whether k is one of the kinds.
func (k Kind) Valid() bool { return k == KindTenant || k == KindEntity }

// String returns "tenant" or "entity".
func (k Kind) String() string {
	switch k {
	case KindTenant:
		return "tenant"
	case KindEntity:
		return "entity"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Deletion is one range an erasure deleted, as stored: its family and
// bounds (Upper nil: to the end of the family), and what it held when it
// was deleted.
type Deletion struct {
	Family storage.ColumnFamily
	Lower  []byte
	Upper  []byte
	Rows   uint64
	Bytes  uint64 // keys and values
}

// Entry is one erasure.
type Entry struct {
	ID        uuid.UUID // a UUIDv7: entries sort in the order they were made
	Kind      Kind
	Scope     storage.TenantScope
	Entity    uuid.UUID // the entity of a KindEntity entry; nil for a tenant
	Recorded  time.Time // when the deletion was made durable
	Verified  time.Time // when the verification scan counted zero; zero until then
	Deletions []Deletion
}

// Errors of the ledger. Functions wrap them with context.
var (
	// ErrBadEntry reports an entry that does not decode or is not
	// consistent: a stored value or a ledger file that was damaged or not
	// written by this package, or an entry built with a bad kind, scope or
	// range.
	ErrBadEntry = errors.New("bad erasure ledger entry")

	// ErrNotFound reports an entry id the ledger does not hold.
	ErrNotFound = errors.New("no such erasure ledger entry")
)

// NewEntry starts an entry of kind for scope (and entity, for KindEntity),
// recorded now.
func NewEntry(kind Kind, scope storage.TenantScope, entity uuid.UUID) (Entry, error) {
	if !kind.Valid() {
		return Entry{}, fmt.Errorf("new ledger entry: %w: kind %d", ErrBadEntry, uint8(kind))
	}
	if scope.IsZero() {
		return Entry{}, fmt.Errorf("new ledger entry: %w", storage.ErrNilScope)
	}
	if (kind == KindEntity) != (entity != uuid.Nil) {
		return Entry{}, fmt.Errorf("new ledger entry: %w: a %s erasure with entity %s", ErrBadEntry, kind, entity)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Entry{}, fmt.Errorf("new ledger entry: %w", err)
	}
	return Entry{ID: id, Kind: kind, Scope: scope, Entity: entity, Recorded: time.Now().UTC().Truncate(time.Microsecond)}, nil
}

// Add records the deletion of r, which held rows rows of n bytes. r must
// lie inside the entry's tenant: Commit refuses the entry otherwise.
func (en *Entry) Add(r storage.ScanRange, rows, n uint64) {
	lower, upper := r.Bounds()
	en.Deletions = append(en.Deletions, Deletion{
		Family: r.Family(), Lower: bytes.Clone(lower), Upper: bytes.Clone(upper), Rows: rows, Bytes: n,
	})
}

// AddKey records the deletion of the one row at k, of n bytes (0 if it
// was absent): the range [k, k‖0x00), which holds k alone (no byte string
// lies strictly between k and k‖0x00).
func (en *Entry) AddKey(k storage.Key, rows, n uint64) {
	lower := k.Bytes()
	en.Deletions = append(en.Deletions, Deletion{
		Family: k.Family(), Lower: lower, Upper: append(bytes.Clone(lower), 0), Rows: rows, Bytes: n,
	})
}

// Rows returns the rows of every deletion of the entry.
func (en *Entry) Rows() (rows, n uint64) {
	for _, d := range en.Deletions {
		rows += d.Rows
		n += d.Bytes
	}
	return rows, n
}

// Ranges rebuilds the ranges of the entry's deletions from their stored
// bounds (storage.FromStoredBounds) and checks that each lies inside the
// entry's tenant: a ledger read from a file is not trusted to name the
// tenant its bounds belong to. A range outside it is ErrBadEntry wrapping
// storage.ErrNotConfined.
func (en *Entry) Ranges() ([]storage.ScanRange, error) {
	if en.Scope.IsZero() {
		return nil, fmt.Errorf("ledger entry %s: %w: %w", en.ID, ErrBadEntry, storage.ErrNilScope)
	}
	rs := make([]storage.ScanRange, 0, len(en.Deletions))
	for i, d := range en.Deletions {
		r, err := storage.FromStoredBounds(d.Family, d.Lower, d.Upper)
		if err != nil {
			return nil, fmt.Errorf("ledger entry %s: deletion %d: %w: %w", en.ID, i, ErrBadEntry, err)
		}
		if !r.Within(storage.TenantAll(en.Scope, d.Family)) {
			return nil, fmt.Errorf("ledger entry %s: deletion %d: %s outside tenant %s: %w: %w", en.ID, i, r, en.Scope, ErrBadEntry, storage.ErrNotConfined)
		}
		rs = append(rs, r)
	}
	return rs, nil
}
