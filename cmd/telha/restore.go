package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"telha.dev/lifecycle"
)

const restoreUsage = "usage: telha restore -from CKPT -data NEWDIR -ledger DIR_OR_LEDGER_FILE"

// restore restores a checkpoint into a new store, replaying the erasures
// the checkpoint lacks (lifecycle.Restore).
func restore(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("restore", flag.ContinueOnError)
	from := fs.String("from", "", "the checkpoint directory (telha checkpoint -to)")
	data := fs.String("data", "", "the new store's directory; must not exist")
	ledgerPath := fs.String("ledger", "", "the erasure ledger: a file from `telha ledger export`, or the directory of the live store")
	if err := parseFlags(fs, args, restoreUsage, stdout); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return usagef("restore: unexpected argument %q (%s)", fs.Arg(0), restoreUsage)
	case *from == "" || *data == "" || *ledgerPath == "":
		return usagef("restore: -from, -data and -ledger are all required (%s)", restoreUsage)
	}
	if _, err := os.Stat(*ledgerPath); err != nil {
		return usagef("restore: -ledger: %v", err)
	}
	entries, err := lifecycle.ReadLedger(*ledgerPath)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintf(stdout, "restore: %d erasures in the ledger %s\n", len(entries), *ledgerPath)
	res, err := lifecycle.Restore(*from, *data, entries, lifecycle.RestoreOptions{EraseOptions: lifecycle.EraseOptions{Progress: progressTo("restore", stderr)}})
	if errors.Is(err, lifecycle.ErrRestoreTarget) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "restored %s into %s: %d erasures replayed, %d already in the checkpoint\n", *from, *data, len(res.Replayed), res.Skipped)
	return err
}
