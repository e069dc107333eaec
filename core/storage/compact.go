package storage

import (
	"errors"
	"fmt"
	"strings"
)

// Deleting a row is not erasing it. Every engine keeps deleted bytes for a
// while: RocksDB in the table files below a range tombstone and in the
// write-ahead log files that recorded the rows, etcd in its revision
// history. A Compactor is an engine that can be told to let them go for
// given ranges, which is what a physical erasure needs after its range
// deletion.

// Compactor is the optional capability of an engine to make the deletion
// of the rows of given ranges physical.
type Compactor interface {
	// CompactRanges rewrites what the engine keeps on stable storage so
	// that no row deleted from the ranges rs before the call is still held
	// by the engine's files: table files are rewritten, write-ahead log
	// files that recorded such rows are retired, history is compacted. It
	// returns nil only once that holds, ErrCompactIncomplete (wrapped with
	// what remains) when the engine could not finish, and ErrInvalidRange
	// for an invalid range. Rows of other ranges are kept as they are.
	//
	// What an engine cannot reach is outside the promise: copies of the
	// store (checkpoints, backups), and blocks the file system or the
	// device have not overwritten.
	CompactRanges(rs []ScanRange) error
}

// Errors of compaction.
var (
	// ErrCompactUnsupported reports an engine that is no Compactor: its
	// deletions cannot be made physical on request.
	ErrCompactUnsupported = errors.New("engine cannot compact deleted ranges")

	// ErrCompactIncomplete reports a compaction that returned while the
	// engine still holds deleted bytes (a file it could not retire, an
	// open snapshot that pins them).
	ErrCompactIncomplete = errors.New("compaction left deleted bytes in the engine's files")
)

// CompactPendingError reports a compaction of a replicated engine that
// made the deletion physical through a quorum of its members (the history
// compacted, the files of the members that answered rewritten) while
// Members, down or unreachable, have not yet rewritten their own files,
// which may still hold the deleted bytes. Compacting again once they are
// back finishes it. It matches ErrCompactIncomplete, so that a caller that
// does not look for it treats the compaction as unfinished.
type CompactPendingError struct {
	Members []string // the members not yet done, as the engine names them
	Err     error    // why, for the first of them
}

func (e *CompactPendingError) Error() string {
	return fmt.Sprintf("%v: %d members have not rewritten their files yet (%s): %v",
		ErrCompactIncomplete, len(e.Members), strings.Join(e.Members, ", "), e.Err)
}

func (e *CompactPendingError) Unwrap() []error { return []error{ErrCompactIncomplete, e.Err} }

// Compact asks e to make the deletion of the rows of rs physical
// (Compactor.CompactRanges), or returns ErrCompactUnsupported.
func Compact(e Engine, rs []ScanRange) error {
	c, ok := e.(Compactor)
	if !ok || !Identifiable(e) {
		return fmt.Errorf("compact %d ranges: %w", len(rs), ErrCompactUnsupported)
	}
	for _, r := range rs {
		if !r.Valid() {
			return fmt.Errorf("compact %d ranges: %w", len(rs), ErrInvalidRange)
		}
	}
	return c.CompactRanges(rs)
}

// TenantRanges returns TenantAll of every family of scope, in family order:
// what a tenant erasure deletes, compacts and verifies. The zero scope
// gives invalid ranges, which every engine refuses.
func TenantRanges(scope TenantScope) []ScanRange {
	rs := make([]ScanRange, 0, len(familyNames)-1)
	for _, cf := range Families() {
		rs = append(rs, TenantAll(scope, cf))
	}
	return rs
}

// CompactRanges does nothing for a memory engine but check its arguments:
// a deleted row's bytes are unreachable once deleted, and nothing of the
// engine lives on stable storage.
func (e *MemoryEngine) CompactRanges(rs []ScanRange) error {
	if e == nil {
		return fmt.Errorf("memory engine: compact: %w", ErrNotOpen)
	}
	if err := e.live(); err != nil {
		return fmt.Errorf("memory engine: compact: %w", err)
	}
	for _, r := range rs {
		if !r.Valid() {
			return fmt.Errorf("memory engine: compact: %w", ErrInvalidRange)
		}
	}
	return nil
}
