package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"telha.dev/lifecycle"
)

const (
	checkpointUsage   = "usage: telha checkpoint -data DIR -to CKPT"
	ledgerExportUsage = "usage: telha ledger export -data DIR -o FILE"
)

// checkpoint writes a consistent copy of a store, marked as a checkpoint
// (lifecycle.Checkpoint: no command opens it as a store), for `telha
// restore -from`.
func checkpoint(args []string, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("checkpoint", flag.ContinueOnError)
	data := fs.String("data", "", "directory of the RocksDB store")
	to := fs.String("to", "", "the checkpoint's directory; must not exist")
	if err := parseFlags(fs, args, checkpointUsage, stdout); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return usagef("checkpoint: unexpected argument %q (%s)", fs.Arg(0), checkpointUsage)
	case *data == "" || *to == "":
		return usagef("checkpoint: -data and -to are both required (%s)", checkpointUsage)
	}
	if err := checkNewPath("checkpoint", "-to", *to, *data); err != nil {
		return err
	}
	if lifecycle.IsRestoreWork(*to) {
		return usagef("checkpoint: -to %s is named as a restore's work directory, which telha restore removes", *to)
	}
	// A directory that cannot be made there (/proc, a file system that
	// refuses it) is refused before the store is opened.
	if err := os.Mkdir(*to, 0o755); err != nil {
		return usagef("checkpoint: -to %s: %v", *to, err)
	}
	if err := os.Remove(*to); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	s, err := openStore("checkpoint", *data, false, stderr)
	if err != nil {
		return err
	}
	defer func() { err = s.close(err) }()
	if err := lifecycle.Checkpoint(s, *to); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "checkpoint of %s written to %s\n", *data, *to)
	return err
}

// ledgerCommand runs `telha ledger export`: the erasure ledger of a store
// as a file, kept apart from the store and its backups for `telha restore
// -ledger`.
func ledgerCommand(args []string, stdout, stderr io.Writer) (err error) {
	if len(args) == 0 || args[0] != "export" {
		return usagef("ledger: want the subcommand export (%s)", ledgerExportUsage)
	}
	fs := flag.NewFlagSet("ledger export", flag.ContinueOnError)
	data := fs.String("data", "", "directory of the RocksDB store")
	out := fs.String("o", "", "the ledger file to write; must not exist")
	if err := parseFlags(fs, args[1:], ledgerExportUsage, stdout); err != nil {
		return err
	}
	switch {
	case fs.NArg() != 0:
		return usagef("ledger export: unexpected argument %q (%s)", fs.Arg(0), ledgerExportUsage)
	case *data == "" || *out == "":
		return usagef("ledger export: -data and -o are both required (%s)", ledgerExportUsage)
	}
	if err := checkNewPath("ledger export", "-o", *out, *data); err != nil {
		return err
	}
	s, err := openStore("ledger export", *data, false, stderr)
	if err != nil {
		return err
	}
	defer func() { err = s.close(err) }()
	f, err := os.OpenFile(*out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return usagef("ledger export: %v", err)
	}
	n, err := lifecycle.ExportLedger(s, f)
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return fmt.Errorf("ledger export: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "%d erasures written to %s\n", n, *out)
	return err
}
