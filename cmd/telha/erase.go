package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/google/uuid"

	"telha.dev/lifecycle"
)

const (
	tenantEraseUsage  = "usage: telha tenant erase -data DIR -scope TENANT:ORG|NAME"
	tenantVerifyUsage = "usage: telha tenant verify -data DIR -scope TENANT:ORG|NAME"
	entityEraseUsage  = "usage: telha entity erase -data DIR -scope TENANT:ORG|NAME -id UUID"
)

// scopeFlags are the flags every erasure command shares: the store and
// the tenant.
type scopeFlags struct {
	fs    *flag.FlagSet
	data  *string
	scope *string
}

func newScopeFlags(name string) scopeFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	return scopeFlags{
		fs:    fs,
		data:  fs.String("data", "", "directory of the RocksDB store"),
		scope: fs.String("scope", "", "the tenant: TENANT:ORG (two UUIDs) or its display name"),
	}
}

// parse parses args and checks that -data and -scope are set.
func (f scopeFlags) parse(args []string, usage string, stdout io.Writer) error {
	if err := parseFlags(f.fs, args, usage, stdout); err != nil {
		return err
	}
	switch {
	case f.fs.NArg() != 0:
		return usagef("%s: unexpected argument %q (%s)", f.fs.Name(), f.fs.Arg(0), usage)
	case *f.data == "":
		return usagef("%s: missing -data DIR (%s)", f.fs.Name(), usage)
	case *f.scope == "":
		return usagef("%s: missing -scope TENANT:ORG (%s)", f.fs.Name(), usage)
	}
	return nil
}

// tenantErase erases a tenant physically (lifecycle.EraseTenant).
func tenantErase(args []string, stdout, stderr io.Writer) (err error) {
	f := newScopeFlags("tenant erase")
	if err := f.parse(args, tenantEraseUsage, stdout); err != nil {
		return err
	}
	s, err := openStore("tenant erase", *f.data, false, stderr)
	if err != nil {
		return err
	}
	defer func() { err = s.close(err) }()
	t, name, err := resolveTenant("tenant erase", s, *f.scope)
	if err != nil {
		return err
	}
	scope := t.Scope
	fmt.Fprintf(stdout, "erasing tenant %s (%s)\n", lifecycle.FormatScope(scope), name)
	er, err := lifecycle.EraseTenant(s, scope, lifecycle.EraseOptions{Progress: progressTo("tenant erase", stderr)})
	if err != nil {
		return err
	}
	rows, n := er.Entry.Rows()
	if _, err := fmt.Fprintf(stdout, "erased tenant %s: %d rows, %d bytes; verified %s; ledger entry %s\n",
		lifecycle.FormatScope(scope), rows, n, er.Entry.Verified.Format("2006-01-02T15:04:05Z"), er.Entry.ID); err != nil {
		return err
	}
	return pendingOf("tenant erase", er)
}

// errRowsRemain is the failure of a verification that counted rows.
var errRowsRemain = errors.New("rows remain")

// tenantVerify prints the rows of a tenant per family; it fails unless
// every count is zero.
func tenantVerify(args []string, stdout, stderr io.Writer) (err error) {
	f := newScopeFlags("tenant verify")
	if err := f.parse(args, tenantVerifyUsage, stdout); err != nil {
		return err
	}
	s, err := openStore("tenant verify", *f.data, false, stderr)
	if err != nil {
		return err
	}
	defer func() { err = s.close(err) }()
	t, name, err := resolveTenant("tenant verify", s, *f.scope)
	if err != nil {
		return err
	}
	scope := t.Scope
	counts, err := lifecycle.Verify(s, scope)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "tenant %s (%s)\n", lifecycle.FormatScope(scope), name)
	var rows, n uint64
	for _, c := range counts {
		fmt.Fprintf(stdout, "%-17s %10d rows %14d bytes\n", c.Family, c.Rows, c.Bytes)
		rows += c.Rows
		n += c.Bytes
	}
	if rows != 0 {
		return fmt.Errorf("tenant verify %s: %d rows (%d bytes) remain: %w", lifecycle.FormatScope(scope), rows, n, errRowsRemain)
	}
	_, err = fmt.Fprintln(stdout, "no row remains")
	return err
}

// entityErase erases one entity of a tenant physically
// (lifecycle.EraseEntity).
func entityErase(args []string, stdout, stderr io.Writer) (err error) {
	f := newScopeFlags("entity erase")
	id := f.fs.String("id", "", "the entity's id (a UUID)")
	if err := f.parse(args, entityEraseUsage, stdout); err != nil {
		return err
	}
	entity, perr := uuid.Parse(*id)
	switch {
	case *id == "":
		return usagef("entity erase: missing -id UUID (%s)", entityEraseUsage)
	case perr != nil || entity == uuid.Nil:
		return usagef("entity erase: -id %q is not a non-nil UUID", *id)
	}
	s, err := openStore("entity erase", *f.data, false, stderr)
	if err != nil {
		return err
	}
	defer func() { err = s.close(err) }()
	t, _, err := resolveTenant("entity erase", s, *f.scope)
	if err != nil {
		return err
	}
	scope := t.Scope
	er, err := lifecycle.EraseEntity(s, scope, entity, lifecycle.EraseOptions{Progress: progressTo("entity erase", stderr)})
	if err != nil {
		return err
	}
	rows, n := er.Entry.Rows()
	if _, err := fmt.Fprintf(stdout, "erased entity %s of tenant %s: %d rows, %d bytes; verified; ledger entry %s\n",
		entity, lifecycle.FormatScope(scope), rows, n, er.Entry.ID); err != nil {
		return err
	}
	return pendingOf("entity erase", er)
}

// entity runs `telha entity SUBCOMMAND`.
func entity(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "erase" {
		return usagef("entity: want the subcommand erase (%s)", entityEraseUsage)
	}
	return entityErase(args[1:], stdout, stderr)
}
