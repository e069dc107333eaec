package main

import (
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"telha.dev/core/durable"
	"telha.dev/lifecycle"
)

// checkpointCommand writes a consistent copy of a store, marked as a
// checkpoint (lifecycle.Checkpoint: no command opens it as a store), for
// `telha restore -from`.
func checkpointCommand(fs *pflag.FlagSet) runner {
	to := fs.String("to", "", "the checkpoint's directory; must not exist")
	return func(in *invocation) (err error) {
		if *to == "" {
			return in.usagef("-data and -to are both required; -to names the new checkpoint's directory")
		}
		if err := checkNewPath("checkpoint", "-to", *to, in.loc.dir); err != nil {
			return err
		}
		if lifecycle.IsRestoreWork(*to) {
			return usagef("checkpoint: -to %s is named as a restore's work directory, which telha restore removes; choose another name", *to)
		}
		// A directory that cannot be made there (/proc, a file system that
		// refuses it) is refused before the store is opened.
		if err := os.Mkdir(*to, 0o755); err != nil {
			return usagef("checkpoint: -to %s: %v", *to, err)
		}
		if err := os.Remove(*to); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		end := in.spinner("checkpoint to " + *to)
		err = lifecycle.Checkpoint(s.Engine, *to)
		end()
		if err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
		_, err = fmt.Fprintf(in.stdout, "checkpoint of %s written to %s\n", s.loc, *to)
		return err
	}
}

// ledgerExport writes the erasure ledger of a store to a file, kept apart
// from the store and its backups for `telha restore -ledger`.
func ledgerExport(fs *pflag.FlagSet) runner {
	out := fs.StringP("out", "o", "", "the ledger file to write; must not exist")
	return func(in *invocation) (err error) {
		if *out == "" {
			return in.usagef("-data and -o are both required; -o names the new ledger file")
		}
		if err := checkNewPath("ledger export", "-o", *out, in.loc.dir); err != nil {
			return err
		}
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		// A file that cannot be created is refused input (-o); an export
		// that fails once it is created, a failure.
		n, created := 0, false
		err = durable.Create(*out, 0o600, func(w io.Writer) (err error) {
			created = true
			n, err = lifecycle.ExportLedger(s.Engine, w)
			return err
		})
		switch {
		case err != nil && !created:
			return usagef("ledger export: %v", err)
		case err != nil:
			return fmt.Errorf("ledger export: %w", err)
		}
		_, err = fmt.Fprintf(in.stdout, "%d erasures written to %s\n", n, *out)
		return err
	}
}

// ledgerList lists the entries of the erasure ledger, oldest first.
func ledgerList(*pflag.FlagSet) runner {
	return func(in *invocation) (err error) {
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		rows, err := ledgerRows(s.Engine)
		if err != nil {
			return fmt.Errorf("ledger list: %w", err)
		}
		return in.print(rows, func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tSCOPE\tENTITY\tROWS\tBYTES\tVERIFIED")
			for _, r := range rows {
				entity, verified := r.Entity, "unfinished"
				if entity == "" {
					entity = "-"
				}
				if r.Verified != nil {
					verified = r.Verified.Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", r.ID, r.Kind, r.Scope, entity, r.Rows, r.Bytes, verified)
			}
			return tw.Flush()
		})
	}
}
