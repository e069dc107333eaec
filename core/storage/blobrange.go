package storage

import "fmt"

// BlobRange is a byte range [Start, End) of a source blob's original text:
// the coordinates spans use (SpanKey), which no redaction shifts. It is the
// one type of such a range: telha.dev/sources redacts by it and the erasure
// ledger records it.
type BlobRange struct{ Start, End uint64 }

func (r BlobRange) String() string { return fmt.Sprintf("[%d:%d]", r.Start, r.End) }
