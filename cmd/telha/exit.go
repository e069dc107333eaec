package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"telha.dev/core/storage/rocksdb"
	"telha.dev/lifecycle"
	"telha.dev/sources"
)

// Exit status, one rule for every command (README, "Exit status"):
//
//   - 0: the command did what it was asked;
//   - 1: an operation failed (a store in use, a device full, an engine
//     error, rows that remain): the input was good, running it again may
//     work;
//   - 2: the input was refused, before anything was written: bad flags or
//     arguments, an unusable or dangerous path (a file where a directory
//     is wanted, a FIFO, a device, a socket, a read-only or missing
//     directory, directories that overlap), a damaged or forged file (an
//     export, a ledger, a store that does not open). A refused command
//     writes nothing: a store it would have created at a new -data is not
//     left behind.
//   - 3: an erasure or redaction was done and verified through a quorum
//     of a replicated engine (etcd), but members that were down have not
//     yet rewritten their files, which may still hold the erased bytes;
//     the next command that opens the store once they are back finishes
//     it (lifecycle.Resume).
const (
	exitOK      = 0
	exitError   = 1 // the operation failed
	exitUsage   = 2 // the input was refused
	exitPending = 3 // done, but members of a replicated engine are pending
)

// pendingError reports an erasure done and verified while members of a
// replicated engine have not yet rewritten their files: exit status 3.
type pendingError struct {
	what    string
	members []string
}

func (e pendingError) Error() string {
	return fmt.Sprintf("%s: done and verified through a quorum, but members %s have not rewritten their files yet, which may still hold the erased bytes; the next telha command that opens the store once they are back finishes it",
		e.what, strings.Join(e.members, ", "))
}

// pendingOf returns a pendingError for what if the erasures left members
// pending, and nil otherwise.
func pendingOf(what string, ers ...lifecycle.Erasure) error {
	var members []string
	for _, er := range ers {
		for _, m := range er.Entry.Pending {
			if !slices.Contains(members, m) {
				members = append(members, m)
			}
		}
	}
	if len(members) == 0 {
		return nil
	}
	return pendingError{what: what, members: members}
}

// usageError marks an error caused by the invocation rather than by the
// system: it exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errHelp reports a request for help (-h) that was answered on stdout: it
// exits with status 0.
var errHelp = errors.New("help shown")

// refusals are the errors of the packages below that say the operator's
// input was refused: whatever wraps one exits with status 2.
var refusals = []error{
	// the tenant lifecycle: scopes, names, tenants, exports, restores, ledgers, input files
	lifecycle.ErrBadScope, lifecycle.ErrNilScope, lifecycle.ErrExists, lifecycle.ErrNameTaken,
	lifecycle.ErrInvalidName, lifecycle.ErrUnknownTenant, lifecycle.ErrNotActive, lifecycle.ErrNotWritable, lifecycle.ErrTargetNotEmpty,
	lifecycle.ErrNotExport, lifecycle.ErrVersion, lifecycle.ErrCorruptFile, lifecycle.ErrNotFound,
	lifecycle.ErrRestoreTarget, lifecycle.ErrBadLedger, lifecycle.ErrForeignLedger, lifecycle.ErrNotRegular,
	lifecycle.ErrUnfinished, lifecycle.ErrCheckpoint,
	// documents
	sources.ErrNotCanonical, sources.ErrChanged, sources.ErrBlocklisted, sources.ErrRedacted,
	sources.ErrBadRange, sources.ErrNoBlob, sources.ErrDeleted,
	// paths that hold no store of ours
	rocksdb.ErrBadPath, rocksdb.ErrNotExist, rocksdb.ErrNotStore, rocksdb.ErrMissingFamily, rocksdb.ErrUnexpectedFamily,
}

// exitStatus is the exit status of a command that returned err.
func exitStatus(err error) int {
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, new(usageError)):
		return exitUsage
	case errors.As(err, new(pendingError)):
		return exitPending
	}
	for _, refused := range refusals {
		if errors.Is(err, refused) {
			return exitUsage
		}
	}
	return exitError
}
