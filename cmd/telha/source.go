package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/lifecycle"
	"telha.dev/sources"
)

const sourceUsage = `usage:
  telha source put -data DIR -scope TENANT:ORG|NAME FILE      ingest FILE (canonical text: valid UTF-8); prints its blob id
  telha source get -data DIR -scope TENANT:ORG|NAME -id ID    print the text of blob ID
  telha source facts -data DIR -scope TENANT:ORG|NAME -id ID  list the passages of blob ID and the facts asserted from them
  telha source redact -data DIR -scope TENANT:ORG|NAME -id ID -range START:END [-range START:END ...] [-erase-facts]
                                                              take the bytes [START, END) of the original text out for good
  telha source delete -data DIR -scope TENANT:ORG|NAME -id ID [-erase-facts]
                                                              delete blob ID for good; its text is refused from then on`

// sourceUsages are the one-line usages of the subcommands.
var sourceUsages = map[string]string{
	"put":    "telha source put -data DIR -scope TENANT:ORG|NAME FILE",
	"get":    "telha source get -data DIR -scope TENANT:ORG|NAME -id ID",
	"facts":  "telha source facts -data DIR -scope TENANT:ORG|NAME -id ID",
	"redact": "telha source redact -data DIR -scope TENANT:ORG|NAME -id ID -range START:END [-range START:END ...] [-erase-facts]",
	"delete": "telha source delete -data DIR -scope TENANT:ORG|NAME -id ID [-erase-facts]",
}

// sourceCommand runs `telha source put|get|facts|redact|delete`.
func sourceCommand(args []string, stdout, stderr io.Writer) (err error) {
	if len(args) == 0 {
		return usagef("source: missing subcommand; %s", oneLine(sourceUsage))
	}
	sub, args := args[0], args[1:]
	flags := flag.NewFlagSet("source "+sub, flag.ContinueOnError)
	dataDir := flags.String("data", "", "directory of the embedded RocksDB store")
	scopeArg := flags.String("scope", "", "the tenant: TENANT:ORG (two UUIDs), or a registered tenant's name")
	idArg := flags.String("id", "", "the blob id (get, facts, redact, delete)")
	var ranges rangeFlags
	flags.Var(&ranges, "range", "redact: the bytes START:END of the original text (repeatable)")
	eraseFacts := flags.Bool("erase-facts", false, "redact, delete: also erase every node and edge asserted from the bytes taken out (telha entity erase)")
	switch sub {
	case "put", "get", "facts", "redact", "delete":
	case "-h", "-help", "--help", "help":
		_, err := fmt.Fprintln(stdout, sourceUsage)
		return err
	default:
		return usagef("source: unknown subcommand %q; %s", sub, oneLine(sourceUsage))
	}
	if err := parseFlags(flags, args, "usage: "+sourceUsages[sub], stdout); err != nil {
		return err
	}
	if *scopeArg == "" {
		return usagef("source %s: missing -scope TENANT:ORG|NAME", sub)
	}
	if *dataDir == "" {
		return usagef("source %s: missing -data DIR", sub)
	}
	var file *os.File
	var id uuid.UUID
	if sub == "put" {
		if flags.NArg() != 1 || *idArg != "" {
			return usagef("source put: want one FILE and no -id (usage: %s)", sourceUsages[sub])
		}
		if file, err = openInput("source put", flags.Arg(0)); err != nil {
			return err
		}
		defer file.Close()
	} else {
		if flags.NArg() != 0 {
			return usagef("source %s: unexpected argument %q", sub, flags.Arg(0))
		}
		if id, err = uuid.Parse(*idArg); err != nil {
			return usagef("source %s: -id: %q is not a blob id: %v", sub, *idArg, err)
		}
	}
	switch {
	case sub == "redact" && len(ranges) == 0:
		return usagef("source redact: missing -range START:END (usage: %s)", sourceUsages[sub])
	case sub != "redact" && len(ranges) > 0:
		return usagef("source %s: -range is for source redact", sub)
	case *eraseFacts && sub != "redact" && sub != "delete":
		return usagef("source %s: -erase-facts is for source redact and delete", sub)
	}
	if sub == "put" && !strings.Contains(*scopeArg, ":") {
		// A name resolves only in an existing store's registry: refused
		// before a store would be created for nothing.
		if _, err := os.Stat(*dataDir); errors.Is(err, fs.ErrNotExist) {
			return usagef("source put: no tenant named %q: there is no store at %s", *scopeArg, *dataDir)
		}
	}
	st, err := openStore("source "+sub, *dataDir, sub == "put", stderr)
	if err != nil {
		return err
	}
	defer func() { err = st.close(err) }()
	scope, err := sourceScope(sub, st, *scopeArg)
	if err != nil {
		return err
	}
	s := sources.Open(st, sources.Options{})
	switch sub {
	case "put":
		return sourcePut(s, scope, file, stdout)
	case "get":
		return sourceGet(s, scope, id, stdout)
	case "facts":
		return sourceFacts(s, scope, id, stdout)
	}
	return sourceRedact(sub, st, scope, id, ranges, *eraseFacts, stdout, stderr)
}

// sourceScope resolves -scope (TENANT:ORG, or a registered tenant's name)
// to a tenant that is not being erased: documents written into a tenant
// under erasure would outlive it.
func sourceScope(sub string, r storage.Reader, arg string) (storage.TenantScope, error) {
	t, known, err := lifecycle.Lookup(r, arg)
	if err != nil {
		return t.Scope, fmt.Errorf("source %s: %w", sub, err)
	}
	if known && t.State != lifecycle.Active {
		return t.Scope, usagef("source %s: tenant %s is %s", sub, arg, t.State)
	}
	return t.Scope, nil
}

// sourcePut ingests file (opened by openInput) and prints its blob id.
func sourcePut(s *sources.Store, scope storage.TenantScope, file *os.File, stdout io.Writer) error {
	b, _, err := s.Ingest(scope, file)
	if err != nil {
		return fmt.Errorf("source put %s: %w", file.Name(), err)
	}
	_, err = fmt.Fprintln(stdout, b.ID)
	return err
}

// sourceGet streams the text of blob id to stdout.
func sourceGet(s *sources.Store, scope storage.TenantScope, id uuid.UUID, stdout io.Writer) error {
	r, err := s.Open(scope, id)
	if err != nil {
		return fmt.Errorf("source get: %w in tenant %s", err, scope)
	}
	_, err = io.Copy(stdout, r)
	return errors.Join(err, r.Close())
}

// sourceFacts prints, for each passage of blob id in document order, the
// facts asserted from it: one line per fact.
func sourceFacts(s *sources.Store, scope storage.TenantScope, id uuid.UUID, stdout io.Writer) error {
	if _, err := s.Stat(scope, id); err != nil {
		return fmt.Errorf("source facts: %w in tenant %s", err, scope)
	}
	passages, err := s.Facts(scope, id, 0, math.MaxUint64)
	if err != nil {
		return fmt.Errorf("source facts: %w", err)
	}
	for _, p := range passages {
		text, err := s.ReadRange(scope, id, int64(p.Span.Start), int64(p.Span.End))
		if err != nil {
			return fmt.Errorf("source facts: %w", err)
		}
		for _, f := range p.Facts {
			if _, err := fmt.Fprintf(stdout, "[%d:%d] %q -> %s\n", p.Span.Start, p.Span.End, excerpt(text), f); err != nil {
				return err
			}
		}
	}
	if len(passages) == 0 {
		_, err = fmt.Fprintf(stdout, "no facts recorded from blob %s\n", id)
	}
	return err
}

// excerpt shortens a passage for one line: at most 60 bytes, cut at a
// character boundary.
func excerpt(text []byte) string {
	const most = 60
	if len(text) <= most {
		return string(text)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return string(text[:cut]) + "…"
}
