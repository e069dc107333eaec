package rocksdb

import (
	"errors"
	"fmt"
	"strings"

	"telha.dev/core/storage"
)

// Errors of Open. Each is wrapped with the path and, where it applies, the
// column family; test with errors.Is. Open also returns storage.ErrCorrupt
// (as a *CorruptError where the damaged file is known) and
// storage.ErrNoSpace.
var (
	// ErrNotExist reports a path that holds no store (missing, or an empty
	// directory) while Config.CreateIfMissing is false. It also wraps
	// fs.ErrNotExist when the directory itself is missing.
	ErrNotExist = errors.New("no store at path")

	// ErrBadPath reports a path that cannot name a store directory: empty,
	// holding a NUL byte, or passing through something that is not a
	// directory.
	ErrBadPath = errors.New("path cannot hold a store")

	// ErrBadConfig reports a Config that Open will not use, such as a
	// MemtableSize above MaxMemtableSize.
	ErrBadConfig = errors.New("bad engine configuration")

	// ErrLocked reports a store that another open engine holds, in this
	// process or another: RocksDB's LOCK file admits one opener at a time.
	ErrLocked = errors.New("store locked by another open engine")

	// ErrReadOnly reports a write, a compaction or a checkpoint of an
	// engine opened with Config.ReadOnly.
	ErrReadOnly = errors.New("store opened read-only")

	// ErrNotStore reports a path that is not a Telha store: a file, a
	// non-empty directory without a RocksDB store, an unreadable store, or a
	// RocksDB store that holds none of Telha's column families.
	ErrNotStore = errors.New("not a Telha store")

	// ErrMissingFamily reports a Telha store that lacks one of the 13 column
	// families. Open never creates a family in an existing store: a missing
	// one means damage or a foreign layout, and creating it empty would hide
	// that.
	ErrMissingFamily = errors.New("store is missing a column family")

	// ErrUnexpectedFamily reports a store holding a column family this
	// version does not know, such as one added by a later key layout. Open
	// refuses it rather than ignore data it cannot keep consistent.
	ErrUnexpectedFamily = errors.New("store has an unknown column family")
)

// isLockError reports whether err is RocksDB's failure to take the LOCK
// file. The C API returns only a message, so this matches the two texts of
// the POSIX environment of RocksDB 7.8: one for a lock held by this process,
// one for a lock held by another.
func isLockError(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "IO error: ") &&
		(strings.Contains(msg, "lock hold by current process") || strings.Contains(msg, "While lock file"))
}

// isLogTrackingError reports whether err is RocksDB's refusal of a store
// whose write-ahead logs disagree with what its MANIFEST tracks of them
// (track_and_verify_wals_in_manifest): a tracked log missing, or shorter
// than its synced size. The C API returns only a message; these are the
// two texts of RocksDB 7.8 (db/wal_edit.cc, WalSet::CheckWals).
func isLogTrackingError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Missing WAL with log number") || strings.Contains(msg, "Size mismatch: WAL")
}

// isOutrunError reports whether err is RocksDB's refusal to recover to the
// point of a damaged write-ahead log record because a family's table files
// already hold writes made after it (db_impl_open.cc, RecoverLogFiles, in
// point-in-time recovery: "SST file is ahead of WALs in CF ..."); the text
// of RocksDB 7.8.
func isOutrunError(err error) bool {
	return strings.Contains(err.Error(), "SST file is ahead of WALs in CF")
}

// CorruptError reports damage found in one file of a store: a write-ahead
// log record whose checksum or sequence is wrong, or acknowledged writes
// missing from the end of the log. It matches storage.ErrCorrupt. The store
// is left as it was found; `telha repair -data DIR` (Repair) drops what
// cannot be read and says what it dropped.
type CorruptError struct {
	File   string // the damaged file's path
	Offset int64  // where in File the damage starts; -1 when not known
	Reason string
}

func (e *CorruptError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%s: %s: %s", e.File, storage.ErrCorrupt, e.Reason)
	}
	return fmt.Sprintf("%s at offset %d: %s: %s", e.File, e.Offset, storage.ErrCorrupt, e.Reason)
}

// Is makes errors.Is(err, storage.ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == storage.ErrCorrupt }

// classify wraps an error returned by RocksDB with the storage sentinel its
// status names. The C API returns only a message, so this reads the two
// status texts of RocksDB 7.8 that callers must be able to test for:
// "Corruption: ..." and an IO error for a full device. Anything else keeps
// RocksDB's message alone, and nil stays nil.
func classify(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "Corruption: "):
		return fmt.Errorf("%w: %v", storage.ErrCorrupt, err)
	case strings.Contains(msg, "No space left on device"):
		return fmt.Errorf("%w: %v", storage.ErrNoSpace, err)
	}
	return err
}
