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

	// ErrCorrupt reports stored rows of this package that do not decode or
	// do not agree with each other (a chunk of the wrong length, content
	// that does not hash to its header). It wraps storage.ErrCorrupt.
	ErrCorrupt = fmt.Errorf("sources: %w", storage.ErrCorrupt)
)
