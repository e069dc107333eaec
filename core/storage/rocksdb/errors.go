package rocksdb

import (
	"errors"
	"strings"
)

// Errors of Open. Each is wrapped with the path and, where it applies, the
// column family; test with errors.Is.
var (
	// ErrNotExist reports a path that holds no store (missing, or an empty
	// directory) while Config.CreateIfMissing is false. It also wraps
	// fs.ErrNotExist when the directory itself is missing.
	ErrNotExist = errors.New("no store at path")

	// ErrLocked reports a store that another open engine holds, in this
	// process or another: RocksDB's LOCK file admits one opener at a time.
	ErrLocked = errors.New("store locked by another open engine")

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
