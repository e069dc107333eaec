package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"telha.dev/lifecycle"
)

const tenantUsage = `usage:
  telha tenant provision -data DIR -scope TENANT:ORG -name NAME   register a new tenant (creates the store if missing)
  telha tenant list -data DIR                                      list the tenants of the registry
  telha tenant export -data DIR -scope TENANT:ORG|NAME -o FILE     write a tenant's rows to a new export file
  telha tenant import -data DIR -scope TENANT:ORG|NAME FILE        read an export into a provisioned, empty tenant
  telha tenant erase -data DIR -scope TENANT:ORG|NAME              erase a tenant physically, verified, recorded in the ledger
  telha tenant verify -data DIR -scope TENANT:ORG|NAME             count a tenant's rows per family; exit 0 only if none`

// tenant runs `telha tenant SUBCOMMAND`. Erasure and verification are
// added beside these by their own files.
func tenant(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("tenant: missing subcommand; %s", oneLine(tenantUsage))
	}
	switch args[0] {
	case "provision":
		return tenantProvision(args[1:], stdout, stderr)
	case "list":
		return tenantList(args[1:], stdout, stderr)
	case "export":
		return tenantExport(args[1:], stdout, stderr)
	case "import":
		return tenantImport(args[1:], stdout, stderr)
	case "erase":
		return tenantErase(args[1:], stdout, stderr)
	case "verify":
		return tenantVerify(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		_, err := fmt.Fprintln(stdout, tenantUsage)
		return err
	}
	return usagef("tenant: unknown subcommand %q; %s", args[0], oneLine(tenantUsage))
}

// tenantFlags are the flags the tenant subcommands share.
type tenantFlags struct {
	fs    *flag.FlagSet
	data  *string
	scope *string
}

func newTenantFlags(name string, withScope bool) tenantFlags {
	fs := flag.NewFlagSet("tenant "+name, flag.ContinueOnError)
	f := tenantFlags{fs: fs, data: fs.String("data", "", "directory of the RocksDB store")}
	if withScope {
		f.scope = fs.String("scope", "", "the tenant: TENANT:ORG (two UUIDs) or its display name")
	}
	return f
}

// parse parses args and checks that -data (and -scope) were given and
// that exactly nargs arguments follow the flags.
func (f tenantFlags) parse(args []string, nargs int, usage string, stdout io.Writer) error {
	if err := parseFlags(f.fs, args, usage, stdout); err != nil {
		return err
	}
	switch {
	case *f.data == "":
		return usagef("%s: missing -data DIR (%s)", f.fs.Name(), usage)
	case f.scope != nil && *f.scope == "":
		return usagef("%s: missing -scope TENANT:ORG|NAME (%s)", f.fs.Name(), usage)
	case f.fs.NArg() > nargs:
		return usagef("%s: unexpected argument %q (%s)", f.fs.Name(), f.fs.Arg(nargs), usage)
	case f.fs.NArg() < nargs:
		return usagef("%s: missing FILE (%s)", f.fs.Name(), usage)
	}
	return nil
}

func tenantProvision(args []string, stdout, stderr io.Writer) (err error) {
	const usage = "usage: telha tenant provision -data DIR -scope TENANT:ORG -name NAME"
	f := newTenantFlags("provision", true)
	name := f.fs.String("name", "", "the display name: 1 to 63 of a-z, 0-9, '.', '_', '-', starting with a letter or digit")
	if err := f.parse(args, 0, usage, stdout); err != nil {
		return err
	}
	if *name == "" {
		return usagef("tenant provision: missing -name NAME (%s)", usage)
	}
	if err := lifecycle.CheckName(*name); err != nil {
		return fmt.Errorf("tenant provision: %w", err)
	}
	scope, err := lifecycle.ParseScope(*f.scope)
	if err != nil {
		return fmt.Errorf("tenant provision: %w", err)
	}
	s, err := openStore("tenant provision", *f.data, true, stderr)
	if err != nil {
		return err
	}
	defer func() { err = s.close(err) }()
	t, err := lifecycle.Provision(s, scope, *name)
	if err != nil {
		return fmt.Errorf("tenant provision: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "provisioned %s as %q in %s\n", lifecycle.FormatScope(t.Scope), t.Name, *f.data)
	return err
}

func tenantList(args []string, stdout, stderr io.Writer) (err error) {
	const usage = "usage: telha tenant list -data DIR"
	f := newTenantFlags("list", false)
	if err := f.parse(args, 0, usage, stdout); err != nil {
		return err
	}
	s, err := openStore("tenant list", *f.data, false, stderr)
	if err != nil {
		return err
	}
	defer func() { err = s.close(err) }()
	all, err := lifecycle.List(s)
	if err != nil {
		return fmt.Errorf("tenant list: %w", err)
	}
	w := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tSTATE\tSCOPE\tPROVISIONED\tCHANGED")
	for _, t := range all {
		name := t.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", name, t.State, lifecycle.FormatScope(t.Scope),
			t.Provisioned.Format(time.RFC3339), t.Changed.Format(time.RFC3339))
	}
	return w.Flush()
}

// progress returns the Options that print a progress line on stderr
// during long work, and one at the end of each phase: "telha: tenant
// verify: 1200000 rows, 310.2 MB".
func progress(stderr io.Writer) lifecycle.Options {
	return lifecycle.Options{Progress: func(phase string, rows uint64, bytes int64) {
		fmt.Fprintf(stderr, "telha: tenant %s: %d rows, %.1f MB\n", phase, rows, float64(bytes)/1e6)
	}}
}

func tenantExport(args []string, stdout, stderr io.Writer) (err error) {
	const usage = "usage: telha tenant export -data DIR -scope TENANT:ORG|NAME -o FILE"
	f := newTenantFlags("export", true)
	out := f.fs.String("o", "", "the export file to create (it must not exist)")
	if err := f.parse(args, 0, usage, stdout); err != nil {
		return err
	}
	if *out == "" {
		return usagef("tenant export: missing -o FILE (%s)", usage)
	}
	if err := checkNewPath("tenant export", "-o", *out, *f.data); err != nil {
		return err
	}
	s, err := openStore("tenant export", *f.data, false, stderr)
	if err != nil {
		return err
	}
	defer func() { err = s.close(err) }()
	t, _, err := resolveTenant("tenant export", s, *f.scope)
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
	st, err := lifecycle.Export(s, t.Scope, tmp, progress(stderr))
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
	_, err = fmt.Fprintf(stdout, "exported %s: %d rows, %d bytes to %s\n", describeTenant(t), st.Total(), st.Bytes, *out)
	return err
}

func tenantImport(args []string, stdout, stderr io.Writer) (err error) {
	const usage = "usage: telha tenant import -data DIR -scope TENANT:ORG|NAME FILE"
	f := newTenantFlags("import", true)
	if err := f.parse(args, 1, usage, stdout); err != nil {
		return err
	}
	file, err := openInput("tenant import", f.fs.Arg(0))
	if err != nil {
		return err
	}
	defer file.Close()
	s, err := openStore("tenant import", *f.data, false, stderr)
	if err != nil {
		return err
	}
	defer func() { err = s.close(err) }()
	t, known, err := lifecycle.Lookup(s, *f.scope)
	if err != nil {
		return fmt.Errorf("tenant import: %w", err)
	}
	if !known {
		return usagef("tenant import: %s is not provisioned in %s; run `telha tenant provision -data %s -scope %s -name NAME` first",
			*f.scope, *f.data, *f.data, *f.scope)
	}
	st, err := lifecycle.Import(s, t.Scope, file, progress(stderr))
	if err != nil {
		return fmt.Errorf("tenant import: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "imported %d rows, %d bytes from %s into %s\n", st.Total(), st.Bytes, f.fs.Arg(0), describeTenant(t))
	return err
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
