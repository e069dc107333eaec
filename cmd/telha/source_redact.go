package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/lifecycle"
	"telha.dev/sources"
)

// rangeFlags are the -range START:END flags of `telha source redact`.
type rangeFlags []sources.Range

func (f *rangeFlags) String() string { return fmt.Sprint([]sources.Range(*f)) }

// Set parses START:END, two decimal byte offsets of the original text.
func (f *rangeFlags) Set(v string) error {
	start, end, ok := strings.Cut(v, ":")
	s, errS := strconv.ParseUint(start, 10, 64)
	e, errE := strconv.ParseUint(end, 10, 64)
	if !ok || errS != nil || errE != nil {
		return fmt.Errorf("%q is not START:END, two byte offsets", v)
	}
	*f = append(*f, sources.Range{Start: s, End: e})
	return nil
}

// sourceRedact runs `telha source redact` (ranges set) or `telha source
// delete` on the store that openStore opened (and resumed): it redacts or
// deletes, and prints the ledger entry and the facts asserted from what
// was taken out (erased, with eraseFacts).
func sourceRedact(sub string, e storage.Engine, scope storage.TenantScope, id uuid.UUID, ranges []sources.Range, eraseFacts bool, stdout, stderr io.Writer) error {
	cmd := "source " + sub
	opts := lifecycle.RedactOptions{EraseFacts: eraseFacts, Progress: progressTo(cmd, stderr)}
	var red lifecycle.Redacted
	var err error
	if sub == "delete" {
		red, err = lifecycle.DeleteSource(e, scope, id, opts)
	} else {
		red, err = lifecycle.Redact(e, scope, id, ranges, opts)
	}
	if err != nil {
		return fmt.Errorf("%s: %w in tenant %s", cmd, err, lifecycle.FormatScope(scope))
	}
	what := fmt.Sprintf("redacted %v from", red.Entry.Redaction.Ranges)
	if red.Entry.Redaction.Deleted {
		what = "deleted"
	}
	w := &errWriter{w: stdout}
	w.printf("%s blob %s of tenant %s; its text is blocklisted; verified; ledger entry %s\n", what, id, lifecycle.FormatScope(scope), red.Entry.ID)
	for _, p := range red.Overlapping {
		for _, f := range p.Facts {
			w.printf("[%d:%d] -> %s\n", p.Span.Start, p.Span.End, f)
		}
	}
	switch {
	case len(red.Overlapping) == 0:
		w.printf("no facts were asserted from the bytes taken out\n")
	case !eraseFacts:
		w.printf("these facts were asserted from the bytes taken out; -erase-facts (or telha entity erase) erases them\n")
	}
	for _, erased := range []struct {
		kind string
		ers  []lifecycle.Erasure
	}{{"node", red.Erased}, {"edge", red.Edges}} {
		for _, er := range erased.ers {
			rows, n := er.Entry.Rows()
			w.printf("erased %s %s: %d rows, %d bytes; ledger entry %s\n", erased.kind, er.Entry.Entity, rows, n, er.Entry.ID)
		}
	}
	if w.err != nil {
		return w.err
	}
	return pendingOf(cmd, append([]lifecycle.Erasure{{Entry: red.Entry}}, append(red.Erased, red.Edges...)...)...)
}

// errWriter prints until the first error, and keeps it.
type errWriter struct {
	w   io.Writer
	err error
}

func (w *errWriter) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}
