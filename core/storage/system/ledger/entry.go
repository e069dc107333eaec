package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Kind is what an entry erased.
type Kind uint8

// The kinds of erasure. The zero value is not a kind.
const (
	KindTenant    Kind = 1 // every row of a tenant
	KindEntity    Kind = 2 // every row of one entity of a tenant
	KindRedaction Kind = 3 // byte ranges of one blob of a tenant, or the whole blob
)

// Valid reports whether k is one of the kinds.
func (k Kind) Valid() bool { return k >= KindTenant && k <= KindRedaction }

// String returns "tenant", "entity" or "redaction".
func (k Kind) String() string {
	switch k {
	case KindTenant:
		return "tenant"
	case KindEntity:
		return "entity"
	case KindRedaction:
		return "redaction"
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

// Redaction is what a KindRedaction entry did to its blob (Entry.Entity).
// Its rows are rewritten, not range-deleted, so the entry holds no
// Deletion: telha.dev/lifecycle hands it to telha.dev/sources to replay.
type Redaction struct {
	// Ranges are the ranges this operation redacted: sorted, each
	// non-empty, none overlapping or touching the next. A deletion may
	// have none.
	Ranges []storage.BlobRange
	// Deleted is set when the operation deleted the whole blob.
	Deleted bool
	// EraseFacts is set when the operation also erases, entity by entity,
	// every fact whose spans overlap Ranges (every fact of the blob for a
	// deletion): a redaction interrupted before they are erased is
	// finished with them.
	EraseFacts bool
	// KeyedDigest is the keyed digest of the blob's text before the
	// operation, which the tenant's blocklist refuses from then on. Replay
	// writes the blocklist row from it even where the blob is absent.
	KeyedDigest [32]byte
}

// Entry is one erasure.
type Entry struct {
	ID     uuid.UUID // a UUIDv7: entries sort in the order they were made
	Kind   Kind
	Scope  storage.TenantScope
	Entity uuid.UUID // the entity of a KindEntity entry, the blob of a KindRedaction; nil for a tenant
	// Deployment is the deployment whose store made the entry (Deployment
	// of that store); Commit sets it. A restore refuses, unless asked, an
	// entry of another deployment. Nil in entries written before entries
	// named their deployment.
	Deployment uuid.UUID
	Recorded   time.Time // when the deletion was made durable
	Verified   time.Time // when the verification scan counted zero; zero until then
	Deletions  []Deletion
	Redaction  *Redaction // set exactly for a KindRedaction entry
	// Pending names the members of a replicated engine (etcd) that had not
	// yet rewritten their files when the erasure was verified through a
	// quorum: their files may still hold the erased bytes until they do.
	// Empty once every member has; set only on a verified entry.
	Pending []string
}

// Limits of Pending: at most maxPending names of 1 to maxMemberName bytes.
const (
	maxPending    = 255
	maxMemberName = 255
)

// Errors of the ledger. Functions wrap them with context.
var (
	// ErrBadEntry reports an entry that does not decode or is not
	// consistent: a stored value or a ledger file that was damaged or not
	// written by this package, or an entry built with a bad kind, scope or
	// range.
	ErrBadEntry = errors.New("bad erasure ledger entry")

	// ErrNotFound reports an entry id the ledger does not hold.
	ErrNotFound = errors.New("no such erasure ledger entry")

	// ErrNotDeletion reports a redaction entry given to Replay, which
	// replays range deletions only.
	ErrNotDeletion = errors.New("a redaction ledger entry is not replayed by range deletion")
)

// NewEntry starts an entry of kind for scope (and entity, for KindEntity;
// the blob, for KindRedaction, whose Redaction it sets to an empty one for
// the caller to fill), recorded now.
func NewEntry(kind Kind, scope storage.TenantScope, entity uuid.UUID) (Entry, error) {
	if !kind.Valid() {
		return Entry{}, fmt.Errorf("new ledger entry: %w: kind %d", ErrBadEntry, uint8(kind))
	}
	if scope.IsZero() {
		return Entry{}, fmt.Errorf("new ledger entry: %w", storage.ErrNilScope)
	}
	if (kind != KindTenant) != (entity != uuid.Nil) {
		return Entry{}, fmt.Errorf("new ledger entry: %w: a %s erasure with entity %s", ErrBadEntry, kind, entity)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Entry{}, fmt.Errorf("new ledger entry: %w", err)
	}
	en := Entry{ID: id, Kind: kind, Scope: scope, Entity: entity, Recorded: time.Now().UTC().Truncate(time.Microsecond)}
	if kind == KindRedaction {
		en.Redaction = &Redaction{}
	}
	return en, nil
}

// check reports, as ErrBadEntry, an entry that is not consistent: an
// unknown kind, a nil id or scope, an entity where its kind has none or
// none where it needs one, a redaction section on an entry of another
// kind or missing from a redaction, a redaction that is not one, a tenant
// erasure that does not delete the whole tenant (checkCoverage), or
// pending members it cannot have (checkPending).
func (en *Entry) check() error {
	switch {
	case !en.Kind.Valid():
		return fmt.Errorf("%w: kind %d", ErrBadEntry, uint8(en.Kind))
	case en.ID == uuid.Nil:
		return fmt.Errorf("%w: nil entry id", ErrBadEntry)
	case en.Scope.IsZero():
		return fmt.Errorf("%w: %w", ErrBadEntry, storage.ErrNilScope)
	case (en.Kind != KindTenant) != (en.Entity != uuid.Nil):
		return fmt.Errorf("%w: a %s erasure with entity %s", ErrBadEntry, en.Kind, en.Entity)
	case (en.Kind == KindRedaction) != (en.Redaction != nil):
		return fmt.Errorf("%w: a %s erasure with redaction %v", ErrBadEntry, en.Kind, en.Redaction)
	}
	if err := en.checkPending(); err != nil {
		return err
	}
	switch {
	case en.Kind == KindTenant:
		return en.checkCoverage()
	case en.Redaction == nil:
		return nil
	case len(en.Deletions) != 0:
		return fmt.Errorf("%w: a redaction with %d range deletions", ErrBadEntry, len(en.Deletions))
	}
	return en.Redaction.check()
}

// checkCoverage reports, as ErrBadEntry, a tenant entry that does not
// delete the whole tenant: one deletion per family, in family order, each
// over exactly storage.TenantAll of the entry's scope. An entry that
// claims a tenant erasure must prove it: replayed, it leaves no row of the
// tenant in any family, and an entry with fewer or narrower deletions
// (a forged file naming a tenant it does not erase) is refused before
// anything is deleted or any tenant marked erased.
func (en *Entry) checkCoverage() error {
	families := storage.Families()
	if len(en.Deletions) != len(families) {
		return fmt.Errorf("%w: a tenant erasure of %d ranges; it must delete all %d families of the tenant", ErrBadEntry, len(en.Deletions), len(families))
	}
	for i, cf := range families {
		d := en.Deletions[i]
		all := storage.TenantAll(en.Scope, cf)
		lower, upper := all.Bounds()
		if d.Family != cf || !bytes.Equal(d.Lower, lower) || !bytes.Equal(d.Upper, upper) || (d.Upper == nil) != (upper == nil) {
			return fmt.Errorf("%w: a tenant erasure whose deletion %d is not all of %s of tenant %s", ErrBadEntry, i, cf, en.Scope)
		}
	}
	return nil
}

// checkPending reports, as ErrBadEntry, members pending on an entry not
// yet verified, too many of them, a name empty, too long or repeated.
func (en *Entry) checkPending() error {
	switch {
	case len(en.Pending) == 0:
		return nil
	case en.Verified.IsZero():
		return fmt.Errorf("%w: members pending on an erasure not verified", ErrBadEntry)
	case len(en.Pending) > maxPending:
		return fmt.Errorf("%w: %d members pending (at most %d)", ErrBadEntry, len(en.Pending), maxPending)
	}
	for i, m := range en.Pending {
		if m == "" || len(m) > maxMemberName || slices.Contains(en.Pending[:i], m) {
			return fmt.Errorf("%w: pending member %d %q is empty, longer than %d bytes or repeated", ErrBadEntry, i, m, maxMemberName)
		}
	}
	return nil
}

// check reports a redaction whose ranges are not sorted, non-empty and
// apart, that redacts nothing, or that has no keyed digest.
func (rd *Redaction) check() error {
	switch {
	case !rd.Deleted && len(rd.Ranges) == 0:
		return fmt.Errorf("%w: a redaction of no range", ErrBadEntry)
	case rd.KeyedDigest == [32]byte{}:
		return fmt.Errorf("%w: a redaction without its keyed digest", ErrBadEntry)
	}
	for i, r := range rd.Ranges {
		switch {
		case r.Start >= r.End:
			return fmt.Errorf("%w: redacted range %d %s is empty or reversed", ErrBadEntry, i, r)
		case i > 0 && r.Start <= rd.Ranges[i-1].End:
			return fmt.Errorf("%w: redacted range %d %s overlaps, touches or precedes %s", ErrBadEntry, i, r, rd.Ranges[i-1])
		}
	}
	return nil
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
// storage.ErrNotConfined; an entry that is not consistent (a redaction
// with deletions, say) is ErrBadEntry too.
func (en *Entry) Ranges() ([]storage.ScanRange, error) {
	if err := en.check(); err != nil {
		return nil, fmt.Errorf("ledger entry %s: %w", en.ID, err)
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
