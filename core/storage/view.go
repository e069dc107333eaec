package storage

import (
	"fmt"
	"iter"
)

// ViewScanner is implemented by readers (engines and their snapshots) that
// can scan without handing each row to the caller to keep: the borrowed
// rows of ScanView. Callers go through the ScanView function, which falls
// back to Scan for a reader without it.
type ViewScanner interface {
	// ScanView is Scan with borrowed rows: the Key and Value of a row are
	// valid only until the loop body returns, and the caller must not
	// modify them. See the ScanView function.
	ScanView(r ScanRange) iter.Seq2[KV, error]
}

// ScanView yields the rows of rg in ascending byte order, as r.Scan does,
// but lends each row instead of giving it: the row's Key and Value are
// valid only until the loop body returns, since the next iteration may
// overwrite them, and the caller must not modify them. A loop that keeps a
// row, or any slice of it, past its iteration copies it (bytes.Clone, or a
// decode into its own values). In exchange a reader that implements
// ViewScanner reads a long range into one buffer that it reuses, instead of
// allocating the bytes of every row: for loops that decode each row before
// the next (a rebuild, an export, a fold over history).
//
// Everything else is exactly as Scan: rows inside rg only, one consistent
// state as of the loop's start, at most one error as the last element, the
// iterator released when the loop ends by exhaustion, break, error or a
// panic (which propagates unchanged), ErrClosed as the next element after
// the reader closes, ErrInvalidRange and no rows for an invalid range.
//
// A reader without ViewScanner is scanned with Scan: its owned rows
// satisfy the weaker contract. A nil r yields ErrNotOpen.
func ScanView(r Reader, rg ScanRange) iter.Seq2[KV, error] {
	switch v := r.(type) {
	case nil:
		return failedScan(fmt.Errorf("scan view: %w", ErrNotOpen))
	case ViewScanner:
		return v.ScanView(rg)
	default:
		return r.Scan(rg)
	}
}
