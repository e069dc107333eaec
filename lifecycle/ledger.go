package lifecycle

import (
	"errors"
	"fmt"
	"io"
	"os"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/system/ledger"
	"telha.dev/core/storage/system/tenants"
)

// LedgerEntries returns every entry of the erasure ledger of r, in the
// order they were made.
func LedgerEntries(r storage.Reader) ([]ledger.Entry, error) {
	var out []ledger.Entry
	for en, err := range ledger.Entries(r) {
		if err != nil {
			return nil, err
		}
		out = append(out, en)
	}
	return out, nil
}

// ExportLedger writes the erasure ledger of r to w as a ledger file (see
// ledger.WriteFile), and returns the number of entries.
func ExportLedger(r storage.Reader, w io.Writer) (int, error) {
	return ledger.WriteFile(w, r)
}

// ErrUnfinished reports a store read read-only whose erasures a crash
// interrupted: its ledger lacks what Resume will add. Any telha command
// that opens the store read-write finishes them.
var ErrUnfinished = errors.New("the store has interrupted erasures, redactions or imports")

// checkFinished returns ErrUnfinished if the ledger of r holds an entry
// not yet verified, or its registry a tenant erasing or importing: work
// that Resume would finish or undo.
func checkFinished(r storage.Reader, entries []ledger.Entry) error {
	for _, en := range entries {
		if en.Verified.IsZero() {
			return fmt.Errorf("%w: ledger entry %s of %s %s is not verified", ErrUnfinished, en.ID, en.Kind, en.Scope)
		}
	}
	for _, state := range []tenants.State{tenants.Erasing, tenants.Importing} {
		scopes, err := tenantsIn(r, state)
		if err != nil {
			return err
		}
		if len(scopes) > 0 {
			return fmt.Errorf("%w: tenant %s is %s", ErrUnfinished, scopes[0], state)
		}
	}
	return nil
}

// ReadLedger reads the erasure ledger at path: a ledger file written by
// ExportLedger (opened by OpenInput: a FIFO, a device or a socket is
// ErrNotRegular), or the directory of a RocksDB store, which it opens
// read-only (rocksdb.Config.ReadOnly: nothing in it is written, so it may
// be a checkpoint or a backup, and may be open elsewhere) and closes
// again. A store with work a crash interrupted (checkFinished) is
// ErrUnfinished: its ledger is not yet all it will be. A damaged or
// forged file or entry is ErrBadLedger.
func ReadLedger(path string) ([]ledger.Entry, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read ledger: %w", err)
	}
	if !fi.IsDir() {
		f, err := OpenInput(path)
		if err != nil {
			return nil, fmt.Errorf("read ledger: %w", err)
		}
		defer f.Close()
		entries, err := ledger.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read ledger %s: %w", path, err)
		}
		return entries, nil
	}
	e, err := rocksdb.Open(rocksdb.Config{Path: path, ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("read ledger of the store %s: %w", path, err)
	}
	entries, err := LedgerEntries(e)
	if err == nil {
		err = checkFinished(e, entries)
	}
	if closeErr := e.Close(); closeErr != nil {
		err = errors.Join(err, closeErr)
	}
	if err != nil {
		return nil, fmt.Errorf("read ledger of the store %s: %w", path, err)
	}
	return entries, nil
}
