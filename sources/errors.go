package sources

import (
	"errors"
	"fmt"

	"telha.dev/core/storage"
)

// Sentinel errors. Operations wrap them with the blob, span or trace they
// concern; test with errors.Is.
var (
	// ErrNotCanonical reports a document that is not canonical text (valid
	// UTF-8); the error names the byte offset of the first invalid byte.
	ErrNotCanonical = errors.New("document is not canonical text (valid UTF-8)")

	// ErrChanged reports a document whose bytes changed between the two
	// passes of an ingest (a file written to while it was ingested).
	// Nothing is stored.
	ErrChanged = errors.New("document changed while it was ingested")

	// ErrNoBlob reports a blob id the tenant has no document for.
	ErrNoBlob = errors.New("no such blob")

	// ErrBadSpan reports a span that is empty, reversed, or reaches past
	// the end of its document.
	ErrBadSpan = errors.New("bad span")

	// ErrBadFact reports a fact with a nil id or an unknown kind.
	ErrBadFact = errors.New("bad fact")

	// ErrBadTrace reports a trace that cannot be stored: no query name,
	// or a parameter with an empty name.
	ErrBadTrace = errors.New("bad trace")

	// ErrTraceExists reports a trace id that is recorded already.
	ErrTraceExists = errors.New("trace already recorded")

	// ErrNoTrace reports a trace id the tenant has no trace for.
	ErrNoTrace = errors.New("no such trace")

	// ErrBadRange reports a redaction range that is empty, inverted,
	// reaches past the end of the original text or has an end inside a
	// UTF-8 character of it; an empty list of ranges; or ranges whose
	// bytes are all redacted already.
	ErrBadRange = errors.New("bad redaction range")

	// ErrDeleted reports a blob that was deleted: its id is an address
	// only, and it has no text to read, redact or delete.
	ErrDeleted = errors.New("blob deleted")

	// ErrBlocklisted reports a text that a redaction or deletion of the
	// tenant took out, whose keyed digest is blocklisted: it is not
	// stored again.
	ErrBlocklisted = errors.New("content is blocklisted: it was redacted or deleted")

	// ErrRedacted reports an ingest of the original text of a blob that
	// was redacted or deleted, whose keyed digest the blocklist lacks (a
	// store restored under another deployment's secret): the blob id is
	// an address only, and the text is not stored again under it.
	ErrRedacted = errors.New("blob was redacted or deleted")

	// ErrBadLedgerEntry reports a redaction plan applied under a nil
	// ledger entry id, or one the blob's record lists already.
	ErrBadLedgerEntry = errors.New("bad ledger entry for a redaction")

	// ErrBadPlan reports a redaction plan that cannot be applied: a nil
	// plan, or one whose blob another redaction or deletion (or a wipe)
	// changed since it was planned, which applying it would undo. Plan
	// again.
	ErrBadPlan = errors.New("redaction plan cannot be applied")

	// ErrCorrupt reports stored rows of this package that do not decode or
	// do not agree with each other (a chunk of the wrong length, content
	// that does not hash to its header). It wraps storage.ErrCorrupt.
	ErrCorrupt = fmt.Errorf("sources: %w", storage.ErrCorrupt)
)
