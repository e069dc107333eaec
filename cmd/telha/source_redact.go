package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/pflag"

	"telha.dev/core/storage"
	"telha.dev/lifecycle"
	"telha.dev/sources"
)

// rangeFlags are the -range START:END flags of `telha source redact`.
type rangeFlags []storage.BlobRange

func (f *rangeFlags) String() string { return fmt.Sprint([]storage.BlobRange(*f)) }

// Set parses START:END, two decimal byte offsets of the original text.
func (f *rangeFlags) Set(v string) error {
	start, end, ok := strings.Cut(v, ":")
	s, errS := strconv.ParseUint(start, 10, 64)
	e, errE := strconv.ParseUint(end, 10, 64)
	if !ok || errS != nil || errE != nil {
		return fmt.Errorf("%q is not START:END, two byte offsets", v)
	}
	*f = append(*f, storage.BlobRange{Start: s, End: e})
	return nil
}

// Type names the flag's value in the help.
func (f *rangeFlags) Type() string { return "START:END" }

// sourceRedact takes byte ranges of a document's original text out for
// good (lifecycle.Redact), after the checks and the confirmation of
// destroy.go.
func sourceRedact(fs *pflag.FlagSet) runner {
	var ranges rangeFlags
	fs.Var(&ranges, "range", "the bytes START:END of the original text to take out (repeatable)")
	return redaction(fs, func(in *invocation) error {
		if len(ranges) == 0 {
			return in.usagef("missing -range START:END")
		}
		return nil
	}, func(e storage.Engine, scope storage.TenantScope, id uuid.UUID) (lifecycle.Plan, error) {
		return lifecycle.PlanRedaction(e, scope, id, ranges)
	}, func(e storage.Engine, scope storage.TenantScope, id uuid.UUID, opts lifecycle.RedactOptions) (lifecycle.Redacted, error) {
		return lifecycle.Redact(e, scope, id, ranges, opts)
	})
}

// sourceDelete deletes a document for good (lifecycle.DeleteSource),
// after the checks and the confirmation of destroy.go.
func sourceDelete(fs *pflag.FlagSet) runner {
	return redaction(fs, func(*invocation) error { return nil }, lifecycle.PlanSourceDeletion, lifecycle.DeleteSource)
}

// redaction is the run of source redact and source delete: check checks
// the command's own flags, plan is the dry run, do the redaction.
func redaction(fs *pflag.FlagSet, check func(*invocation) error,
	plan func(storage.Engine, storage.TenantScope, uuid.UUID) (lifecycle.Plan, error),
	do func(storage.Engine, storage.TenantScope, uuid.UUID, lifecycle.RedactOptions) (lifecycle.Redacted, error)) runner {
	d := defineDestruction(fs)
	blob := blobFlag(fs)
	eraseFacts := fs.Bool("erase-facts", false, "also erase every node and edge asserted from the bytes taken out (as telha entity erase does)")
	return func(in *invocation) (err error) {
		id, err := blob(in)
		if err != nil {
			return err
		}
		if err := check(in); err != nil {
			return err
		}
		st, t, _, err := d.open(in)
		if err != nil {
			return err
		}
		defer func() { err = st.close(err) }()
		scope, err := sourceScope(in.name(), st, in.scope)
		if err != nil {
			return err
		}
		if d.dryRun || !d.yes {
			p, err := plan(st.Engine, scope, id)
			if err != nil {
				return fmt.Errorf("%s: %w", in.name(), err)
			}
			r := redactionPlanned(id, scope, in.name() == "source delete", p)
			if d.dryRun {
				return in.printRedaction(r, *eraseFacts)
			}
			if err := d.confirm(in, t, fmt.Sprintf("%s blob %s of tenant %s: %d rows, %d bytes", strings.TrimPrefix(in.name(), "source "), id, r.Scope, r.Rows, r.Bytes)); err != nil {
				return err
			}
		}
		progress, end := in.stepProgress()
		red, err := do(st.Engine, scope, id, lifecycle.RedactOptions{EraseFacts: *eraseFacts, Progress: progress})
		end()
		if err != nil {
			return fmt.Errorf("%s: %w", in.name(), err)
		}
		if err := in.printRedaction(redactionDone(id, scope, red), *eraseFacts); err != nil {
			return err
		}
		return pendingOf(in.name(), append([]lifecycle.Erasure{{Entry: red.Entry}}, append(red.Erased, red.Edges...)...)...)
	}
}

// factRows are the facts of passages, without their text.
func factRows(passages []sources.Provenance) []factRow {
	rows := []factRow{}
	for _, p := range passages {
		for _, f := range p.Facts {
			rows = append(rows, factRow{Start: p.Span.Start, End: p.Span.End, Fact: f.String()})
		}
	}
	return rows
}

// redactionPlanned is the report of a dry run.
func redactionPlanned(id uuid.UUID, scope storage.TenantScope, deleted bool, p lifecycle.Plan) redactionReport {
	fams, rows, n := familyRows(p.Families)
	return redactionReport{Blob: id.String(), Scope: lifecycle.FormatScope(scope), DryRun: true, Deleted: deleted,
		Ranges: []string{}, Families: fams, Rows: rows, Bytes: n, Facts: factRows(p.Overlapping)}
}

// redactionDone is the report of a redaction done.
func redactionDone(id uuid.UUID, scope storage.TenantScope, red lifecycle.Redacted) redactionReport {
	r := redactionReport{Blob: id.String(), Scope: lifecycle.FormatScope(scope), Ranges: []string{},
		Ledger: red.Entry.ID.String(), Facts: factRows(red.Overlapping), Pending: red.Entry.Pending}
	if rd := red.Entry.Redaction; rd != nil {
		r.Deleted = rd.Deleted
		for _, rg := range rd.Ranges {
			r.Ranges = append(r.Ranges, fmt.Sprintf("%d:%d", rg.Start, rg.End))
		}
	}
	for _, erased := range []struct {
		kind string
		ers  []lifecycle.Erasure
	}{{"node", red.Erased}, {"edge", red.Edges}} {
		for _, er := range erased.ers {
			r.Erased = append(r.Erased, erased.kind+" "+er.Entry.Entity.String())
			rows, n := er.Entry.Rows()
			r.Rows += rows
			r.Bytes += n
		}
	}
	return r
}

// printRedaction prints a redaction's report: what was done (or would
// be), then the facts asserted from the bytes taken out.
func (in *invocation) printRedaction(r redactionReport, eraseFacts bool) error {
	return in.print(r, func(w io.Writer) error {
		what := fmt.Sprintf("redacted [[%s]] from", strings.Join(r.Ranges, "] ["))
		if r.Deleted {
			what = "deleted"
		}
		if r.DryRun {
			fmt.Fprintf(w, "dry run: %s blob %s of tenant %s would rewrite or delete %d rows, %d bytes; nothing was changed\n",
				strings.TrimPrefix(in.name(), "source "), r.Blob, r.Scope, r.Rows, r.Bytes)
			printFamilies(w, r.Families)
		} else {
			fmt.Fprintf(w, "%s blob %s of tenant %s; its text is blocklisted; verified; ledger entry %s\n", what, r.Blob, r.Scope, r.Ledger)
		}
		for _, f := range r.Facts {
			fmt.Fprintf(w, "[%d:%d] -> %s\n", f.Start, f.End, f.Fact)
		}
		switch {
		case len(r.Facts) == 0:
			fmt.Fprintf(w, "no facts were asserted from the bytes taken out\n")
		case !eraseFacts:
			fmt.Fprintf(w, "these facts were asserted from the bytes taken out; -erase-facts (or telha entity erase) erases them\n")
		}
		for _, e := range r.Erased {
			fmt.Fprintf(w, "erased %s\n", e)
		}
		return nil
	})
}
