package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/spf13/pflag"

	"telha.dev/core/storage"
	"telha.dev/lifecycle"
	"telha.dev/sources"
)

// sourcePut ingests FILE (sources.Store.Ingest) and prints its blob id.
func sourcePut(*pflag.FlagSet) runner {
	return func(in *invocation) (err error) {
		file, err := openInput("source put", in.args[0])
		if err != nil {
			return err
		}
		defer file.Close()
		if !strings.Contains(in.scope, ":") && !in.loc.etcd() {
			// A name resolves only in an existing store's registry: refused
			// before a store would be created for nothing.
			if _, err := os.Stat(in.loc.dir); errors.Is(err, fs.ErrNotExist) {
				return usagef("source put: no tenant named %q: there is no store at %s", in.scope, in.loc.dir)
			}
		}
		st, scope, err := in.openSource(true)
		if err != nil {
			return err
		}
		defer func() { err = st.close(err) }()
		src, end := in.meter(file)
		b, _, err := sources.Open(st.Engine, sources.Options{}).Ingest(scope, src)
		end()
		if err != nil {
			return fmt.Errorf("source put %s: %w", file.Name(), err)
		}
		_, err = fmt.Fprintln(in.stdout, b.ID)
		return err
	}
}

// blobFlag defines -id, a blob id, on fs; the function returned parses
// it.
func blobFlag(fs *pflag.FlagSet) func(in *invocation) (uuid.UUID, error) {
	id := fs.String("id", "", "the blob id (as telha source put printed it)")
	return func(in *invocation) (uuid.UUID, error) {
		if *id == "" {
			return uuid.Nil, in.usagef("missing -id ID: an empty id is not a blob id; give -id with the UUID telha source put printed")
		}
		b, err := uuid.Parse(*id)
		if err != nil || b == uuid.Nil {
			return uuid.Nil, in.usagef("-id %q is not a blob id; want the UUID telha source put printed", *id)
		}
		return b, nil
	}
}

// openSource opens the store and resolves -scope for a source command.
func (in *invocation) openSource(create bool) (st *store, scope storage.TenantScope, err error) {
	st, err = in.open(create)
	if err != nil {
		return nil, scope, err
	}
	scope, err = sourceScope(in.name(), st, in.scope)
	if err != nil {
		return nil, scope, st.close(err)
	}
	return st, scope, nil
}

// blobCommand is the runner of a source command that reads blob -id: it
// parses -id (blobFlag), opens the store, resolves -scope (openSource),
// runs f and closes the store.
func blobCommand(fs *pflag.FlagSet, f func(in *invocation, st *store, scope storage.TenantScope, id uuid.UUID) error) runner {
	blob := blobFlag(fs)
	return func(in *invocation) (err error) {
		id, err := blob(in)
		if err != nil {
			return err
		}
		st, scope, err := in.openSource(false)
		if err != nil {
			return err
		}
		defer func() { err = st.close(err) }()
		return f(in, st, scope, id)
	}
}

// sourceGet streams the text of blob -id to stdout.
func sourceGet(fs *pflag.FlagSet) runner {
	return blobCommand(fs, func(in *invocation, st *store, scope storage.TenantScope, id uuid.UUID) error {
		r, err := sources.Open(st.Engine, sources.Options{}).Open(scope, id)
		if err != nil {
			return fmt.Errorf("source get: %w in tenant %s", err, lifecycle.FormatScope(scope))
		}
		_, err = io.Copy(in.stdout, r)
		return errors.Join(err, r.Close())
	})
}

// sourceFacts prints, for each passage of blob -id in document order, the
// facts asserted from it: one line per fact.
func sourceFacts(fs *pflag.FlagSet) runner {
	return blobCommand(fs, func(in *invocation, st *store, scope storage.TenantScope, id uuid.UUID) error {
		s := sources.Open(st.Engine, sources.Options{})
		if _, err := s.Stat(scope, id); err != nil {
			return fmt.Errorf("source facts: %w in tenant %s", err, lifecycle.FormatScope(scope))
		}
		passages, err := s.Facts(scope, id, 0, math.MaxUint64)
		if err != nil {
			return fmt.Errorf("source facts: %w", err)
		}
		rows := []factRow{}
		for _, p := range passages {
			text, err := s.ReadRange(scope, id, int64(p.Span.Start), int64(p.Span.End))
			if err != nil {
				return fmt.Errorf("source facts: %w", err)
			}
			for _, f := range p.Facts {
				rows = append(rows, factRow{Start: p.Span.Start, End: p.Span.End, Text: excerpt(text), Fact: f.String()})
			}
		}
		return in.print(rows, func(w io.Writer) error {
			for _, r := range rows {
				fmt.Fprintf(w, "[%d:%d] %q -> %s\n", r.Start, r.End, r.Text, r.Fact)
			}
			if len(rows) == 0 {
				fmt.Fprintf(w, "no facts recorded from blob %s\n", id)
			}
			return nil
		})
	})
}

// sourceScope resolves -scope (TENANT:ORG, or a registered tenant's name)
// to a tenant that is not being erased: documents written into a tenant
// under erasure would outlive it.
func sourceScope(cmd string, r storage.Reader, arg string) (storage.TenantScope, error) {
	t, known, err := lifecycle.Lookup(r, arg)
	if err != nil {
		return t.Scope, fmt.Errorf("%s: %w", cmd, err)
	}
	if known && t.State != lifecycle.Active {
		return t.Scope, usagef("%s: tenant %s is %s", cmd, arg, t.State)
	}
	return t.Scope, nil
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
