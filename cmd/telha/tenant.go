package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"telha.dev/lifecycle"
)

// tenantProvision registers a new tenant (lifecycle.Provision).
func tenantProvision(fs *pflag.FlagSet) runner {
	name := fs.String("name", "", "the display name: 1 to 63 of a-z, 0-9, '.', '_', '-', starting with a letter or digit")
	return func(in *invocation) (err error) {
		if *name == "" {
			return in.usagef("missing -name NAME")
		}
		if err := lifecycle.CheckName(*name); err != nil {
			return fmt.Errorf("tenant provision: %w", err)
		}
		scope, err := lifecycle.ParseScope(in.scope)
		if err != nil {
			return fmt.Errorf("tenant provision: %w", err)
		}
		s, err := in.open(true)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		t, err := lifecycle.Provision(s.Engine, scope, *name)
		if err != nil {
			return fmt.Errorf("tenant provision: %w", err)
		}
		_, err = fmt.Fprintf(in.stdout, "provisioned %s as %q in %s\n", lifecycle.FormatScope(t.Scope), t.Name, s.loc)
		return err
	}
}

// tenantList lists the registry's tenants.
func tenantList(*pflag.FlagSet) runner {
	return func(in *invocation) (err error) {
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		all, err := lifecycle.List(s)
		if err != nil {
			return fmt.Errorf("tenant list: %w", err)
		}
		rows := make([]tenantRow, 0, len(all))
		for _, t := range all {
			rows = append(rows, tenantRowOf(t))
		}
		return in.print(rows, func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSTATE\tSCOPE\tPROVISIONED\tCHANGED")
			for _, r := range rows {
				name := r.Name
				if name == "" {
					name = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, r.State, r.Scope,
					r.Provisioned.Format(time.RFC3339), r.Changed.Format(time.RFC3339))
			}
			return tw.Flush()
		})
	}
}

// tenantExport writes a tenant's rows to a new export file
// (lifecycle.Export).
func tenantExport(fs *pflag.FlagSet) runner {
	out := fs.StringP("out", "o", "", "the export file to create (it must not exist)")
	return func(in *invocation) (err error) {
		if *out == "" {
			return in.usagef("missing -o FILE")
		}
		if err := checkNewPath("tenant export", "-o", *out, in.loc.dir); err != nil {
			return err
		}
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		t, _, err := resolveTenant("tenant export", s, in.scope)
		if err != nil {
			return err
		}
		// The export is written beside its name and renamed into place once
		// complete, so a failed export leaves no file that looks whole.
		tmp, err := os.CreateTemp(filepath.Dir(*out), filepath.Base(*out)+".partial-*")
		if err != nil {
			return usagef("tenant export: %v", err)
		}
		defer os.Remove(tmp.Name())
		var total int64
		if in.showsBars() {
			// The bar's total is what the tenant holds: one more scan,
			// on a terminal only.
			counts, err := lifecycle.Verify(s.Engine, t.Scope)
			if err != nil {
				return fmt.Errorf("tenant export: %w", err)
			}
			for _, c := range counts {
				total += int64(c.Bytes)
			}
		}
		opts, end := in.rowProgress(total)
		st, err := lifecycle.Export(s.Engine, t.Scope, tmp, opts)
		end()
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("tenant export: %w", err)
		}
		if err := os.Link(tmp.Name(), *out); err != nil {
			return usagef("tenant export: %v", err)
		}
		_, err = fmt.Fprintf(in.stdout, "exported %s: %d rows, %d bytes to %s\n", describeTenant(t), st.Total(), st.Bytes, *out)
		return err
	}
}

// tenantImport reads an export into a provisioned, empty tenant
// (lifecycle.Import).
func tenantImport(*pflag.FlagSet) runner {
	return func(in *invocation) (err error) {
		file, err := openInput("tenant import", in.args[0])
		if err != nil {
			return err
		}
		defer file.Close()
		s, t, known, err := in.openTenant()
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		if !known {
			return usagef("tenant import: %s is not provisioned in %s; run telha tenant provision %s -scope TENANT:ORG -name NAME first",
				in.scope, s.loc, in.loc.flags())
		}
		var size int64
		if fi, err := file.Stat(); err == nil {
			size = fi.Size() // about the bytes of the rows in it
		}
		opts, end := in.rowProgress(size)
		st, err := lifecycle.Import(s.Engine, t.Scope, file, opts)
		end()
		if err != nil {
			return fmt.Errorf("tenant import: %w", err)
		}
		_, err = fmt.Fprintf(in.stdout, "imported %d rows, %d bytes from %s into %s\n", st.Total(), st.Bytes, in.args[0], describeTenant(t))
		return err
	}
}

// openInput opens an input file of cmd (an export, a document, a ledger
// file) with lifecycle.OpenInput: anything but a regular file is refused,
// without blocking, and so is a path that cannot be opened.
func openInput(cmd, path string) (*os.File, error) {
	f, err := lifecycle.OpenInput(path)
	if err != nil {
		return nil, usagef("%s: %w", cmd, err)
	}
	return f, nil
}

// describeTenant names a tenant: its display name and scope.
func describeTenant(t lifecycle.Tenant) string {
	if t.Name == "" {
		return lifecycle.FormatScope(t.Scope)
	}
	return fmt.Sprintf("%s (%s)", t.Name, lifecycle.FormatScope(t.Scope))
}
