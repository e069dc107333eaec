package storage

import (
	"iter"
	"reflect"
)

// KV is one row yielded by a scan. Both slices are owned by the caller: the
// engine copies them out of its own memory, so they stay valid after the
// loop moves on. Decode Key with the Decode function of the range's family.
// The rows of ScanView are the exception: they are lent, valid only until
// the loop body returns.
type KV struct {
	Key   []byte
	Value []byte
}

// Reader is the read half shared by an engine and its snapshots.
type Reader interface {
	// Get returns the value stored at k, or ErrNotFound. An invalid key
	// returns ErrInvalidKey.
	Get(k Key) ([]byte, error)

	// Scan yields the rows of r in ascending byte order. It yields at most
	// one error, as its last element. The engine's iterator is released when
	// the loop ends, whether by exhaustion, break, error or a panic in the
	// loop body; the panic propagates unchanged. An invalid range yields
	// ErrInvalidRange and no rows.
	//
	// A scan sees one consistent state as of its start: a batch is wholly
	// visible or not, and writes made by the loop body (which may write to
	// the engine) are not seen by it. The sequence may be ranged over more
	// than once; each range is a new scan. If the engine or snapshot closes
	// while a scan runs (from the loop body or elsewhere), the scan yields
	// no row after Close returns: its next element is ErrClosed.
	Scan(r ScanRange) iter.Seq2[KV, error]
}

// Engine is a storage backend. Every method is typed on Key, ScanRange and
// Batch: no engine method accepts raw key bytes, so isolation is decided by
// the constructors of this package alone. Engines are safe for concurrent
// use.
//
// Engines trust nothing they are handed: they check every key with
// Key.Valid, every range with ScanRange.Valid, and every batch mutation
// with Mutation.Check when they apply it, so a value changed after it was
// built (through unsafe, or a data race) is refused, never stored where no
// range reaches it. A value longer than MaxValueLen is refused with
// ErrValueTooLarge. An engine that was never opened (a nil pointer, or a
// zero value that is not a working engine) returns ErrNotOpen from every
// method; none panics. The conformance suite in storagetest pins all of
// this.
type Engine interface {
	Reader

	// Put stores value at k.
	Put(k Key, value []byte) error

	// Delete removes k. Deleting an absent key is not an error.
	Delete(k Key) error

	// Write applies b atomically under the engine's configured sync policy:
	// all of it or, with an error, none of it. A nil batch is refused with
	// ErrNilBatch. A batch with conditions (Batch.RequireAbsent,
	// RequireValue) is applied only if every condition holds at the
	// instant it is applied, with no other write between the check and the
	// batch; otherwise Write returns ErrConflict and applies nothing.
	// Engines check every condition with Condition.Check, as they check
	// mutations.
	Write(b *Batch) error

	// WriteDurable applies b atomically and returns only once it is on
	// stable storage, whatever the sync policy: for user-visible destruction
	// (tombstone cascades) that must survive power loss once acknowledged.
	// Conditions are kept as Write keeps them.
	WriteDurable(b *Batch) error

	// DeleteRange removes every key of r.
	DeleteRange(r ScanRange) error

	// Snapshot returns a consistent read-only view as of now. Release it
	// with Close; hold it briefly.
	Snapshot() (Snapshot, error)

	// Checkpoint writes a consistent copy of the store to dir. It returns an
	// error wrapping fs.ErrExist if dir exists, and an error for a dir that
	// cannot be created, leaving nothing behind. The copy opens as a working
	// store.
	Checkpoint(dir string) error

	// Close releases the engine and ends its open snapshots, whose reads then
	// return ErrClosed. Later calls, Close included, return ErrClosed.
	Close() error
}

// Identifiable reports whether e is an engine value that can key a map or
// be compared with ==: non-nil, and of a comparable dynamic type (every
// pointer is). A registry of per-engine state (OnWipe's listeners, a
// subsystem's caches shared by its handles on one engine) keys by engine
// only when this holds, since comparing two values of one uncomparable
// type panics.
func Identifiable(e Engine) bool {
	return e != nil && reflect.ValueOf(e).Comparable()
}

// Snapshot is a consistent read-only view of an engine.
type Snapshot interface {
	Reader

	// Close releases the snapshot. Later reads return ErrClosed; closing
	// twice returns nil or ErrClosed, never a crash.
	Close() error
}
