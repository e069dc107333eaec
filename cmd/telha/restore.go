package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"telha.dev/core/storage"
	"telha.dev/lifecycle"
)

// restoreCommand restores a checkpoint into a new store, replaying the erasures
// the checkpoint lacks (lifecycle.Restore). It reads the checkpoint and
// the ledger and writes nothing but the new store: the ledger of a store's
// directory is read read-only, the checkpoint copied.
func restoreCommand(fs *pflag.FlagSet) runner {
	from := fs.String("from", "", "the checkpoint directory (telha checkpoint -to)")
	data := fs.String("data", "", "the new RocksDB store's directory; must not exist")
	ledgerPath := fs.String("ledger", "", "the erasure ledger: a file that telha ledger export wrote, or the directory of the live store")
	foreign := fs.Bool("foreign-ledger", false, "replay ledger entries of another deployment than the checkpoint's, or that name none")
	return func(in *invocation) error {
		if *from == "" || *data == "" || *ledgerPath == "" {
			return in.usagef("-from, -data and -ledger are all required")
		}
		return restore(in, *from, *data, *ledgerPath, *foreign)
	}
}

// restore restores the checkpoint from into the new store data.
func restore(in *invocation, from, data, ledgerPath string, foreign bool) error {
	if _, err := os.Stat(ledgerPath); err != nil {
		return usagef("restore: -ledger: %v", err)
	}
	if err := lifecycle.CheckLedgerPath(ledgerPath, from); err != nil {
		return fmt.Errorf("restore: -ledger: %w", err)
	}
	entries, err := lifecycle.ReadLedger(ledgerPath)
	if errors.Is(err, lifecycle.ErrUnfinished) {
		return fmt.Errorf("restore: -ledger %s: %w; run any telha command on it (telha tenant list -data %s) to finish them, then restore again", ledgerPath, err, ledgerPath)
	}
	if err != nil {
		return fmt.Errorf("restore: %w", readLedgerError(err))
	}
	fmt.Fprintf(in.stdout, "restore: %d erasures in the ledger %s\n", len(entries), ledgerPath)
	progress, end := in.stepProgress()
	opts := lifecycle.RestoreOptions{EraseOptions: lifecycle.EraseOptions{Progress: progress}, ForeignLedger: foreign}
	res, err := lifecycle.Restore(from, data, entries, opts)
	end()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(in.stdout, "restored %s into %s: %d erasures replayed, %d already in the checkpoint\n", from, data, len(res.Replayed), res.Skipped)
	return err
}

// readLedgerError classifies a ledger that cannot be read: a store's
// directory that does not open (damaged, or no store) is refused input, as
// a damaged or forged file is; a store in use elsewhere is not (a
// read-only open takes no lock, so that is never the case).
func readLedgerError(err error) error {
	if errors.Is(err, storage.ErrCorrupt) {
		return usageError{err}
	}
	return err
}
