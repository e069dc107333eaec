package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"telha.dev/lifecycle"
)

// Destruction is deliberate: the commands that erase or redact for good
// (tenant erase, entity erase, source redact, source delete) refuse a
// scope the tenant registry does not hold unless -unregistered (a
// mistyped UUID erases nothing and writes no ledger entry); with -dry-run
// they print what would go, rows and bytes per family, and change
// nothing; otherwise they ask, on a terminal, for the tenant's name (or
// TENANT:ORG, or its tenant id) to be typed, and without a terminal they
// want -yes.

// destruction holds the flags every destroying command shares.
type destruction struct {
	yes, dryRun, unregistered bool
}

// defineDestruction defines -yes, -dry-run and -unregistered on fs.
func defineDestruction(fs *pflag.FlagSet) *destruction {
	d := &destruction{}
	fs.BoolVar(&d.yes, "yes", false, "do not ask for confirmation (for scripts)")
	fs.BoolVar(&d.dryRun, "dry-run", false, "print what would go, rows and bytes per family, and change nothing")
	fs.BoolVar(&d.unregistered, "unregistered", false, "act on a scope the tenant registry does not hold")
	return d
}

// terminal is where a destroying command asks for confirmation: standard
// input, when it is a terminal.
var terminal = os.Stdin

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// check refuses, before the store is opened, a destruction that could
// not be confirmed: neither -yes nor -dry-run, and no terminal to ask on.
func (d *destruction) check(in *invocation) error {
	if d.yes || d.dryRun || isTerminal(terminal) {
		return nil
	}
	return usagef("%s: standard input is not a terminal to confirm on; pass -yes to go ahead, or -dry-run to see what would go", in.name())
}

// open runs check, then opens the store and looks -scope up in its
// registry (openTenant), refusing a scope the registry does not hold
// unless -unregistered; it describes the tenant for a message
// (describeState). On success the caller closes the store.
func (d *destruction) open(in *invocation) (*store, lifecycle.Tenant, string, error) {
	if err := d.check(in); err != nil {
		return nil, lifecycle.Tenant{}, "", err
	}
	s, t, known, err := in.openTenant()
	if err != nil {
		return nil, t, "", err
	}
	if !known && !d.unregistered {
		return nil, t, "", s.close(usagef("%s: %s is not in the tenant registry of %s; check it against telha tenant list %s, or pass -unregistered to act on it anyway",
			in.name(), lifecycle.FormatScope(t.Scope), in.loc, in.loc.flags()))
	}
	return s, t, describeState(t, known), nil
}

// confirm asks for the tenant's name to be typed on the terminal before
// what (a sentence: "erase tenant X: 40 rows, 2100 bytes") is done; -yes
// skips it, and without a terminal -yes is required.
func (d *destruction) confirm(in *invocation, t lifecycle.Tenant, what string) error {
	if d.yes {
		return nil
	}
	scope := lifecycle.FormatScope(t.Scope)
	want := []string{scope, t.Scope.Tenant().String()}
	ask := "its TENANT:ORG " + scope
	if t.Name != "" {
		want = append(want, t.Name)
		ask = fmt.Sprintf("the tenant's name %q (or %s)", t.Name, scope)
	}
	fmt.Fprintf(in.stderr, "telha: %s: %s, for good.\nType %s to confirm: ", in.name(), what, ask)
	line, err := bufio.NewReader(terminal).ReadString('\n')
	typed := strings.TrimSpace(line)
	for _, w := range want {
		if typed == w {
			return nil
		}
	}
	if err != nil && typed == "" {
		return usagef("%s: no confirmation typed (%v); nothing was changed", in.name(), err)
	}
	return usagef("%s: %q is not %s; nothing was changed", in.name(), typed, ask)
}
