package rocksdb

import (
	"encoding/binary"
	"fmt"
	"iter"
	"math"

	"telha.dev/core/storage"
)

// Scan yields the rows of r in ascending key order. Each row is copied out
// of RocksDB's memory, so it stays valid after the loop moves on.
//
// Rows are read in batches: one call into RocksDB copies as many rows as
// fit into a new buffer, from 1 KiB for the first batch of a scan up to
// 16 KiB, and the rows of a batch share that buffer (each row's slices are
// capped, so an append to one never writes into another). A caller that
// keeps a few rows of a long scan for long keeps their batches alive too:
// copy those rows (bytes.Clone) to release the rest.
func (e *Engine) Scan(r storage.ScanRange) iter.Seq2[storage.KV, error] {
	if e == nil {
		return failedScan(fmt.Errorf("scan: %w", storage.ErrNotOpen))
	}
	return e.scan(nil, r, false)
}

// ScanView is Scan with borrowed rows (see storage.ScanView): the rows are
// copied out of RocksDB's memory batch by batch, as Scan's are, but every
// batch after a scan's first goes into one buffer of the largest batch
// size, which the scan reuses. A long scan allocates that buffer once,
// instead of a new buffer for each batch that the garbage collector then
// reclaims.
//
// The buffer is the scan's own, never shared with another scan (a pool
// would save one allocation per scan): a caller that keeps a borrowed row
// against the contract sees it overwritten by later rows of its own range,
// never by the rows of another scan, which may be another tenant's.
func (e *Engine) ScanView(r storage.ScanRange) iter.Seq2[storage.KV, error] {
	if e == nil {
		return failedScan(fmt.Errorf("scan view: %w", storage.ErrNotOpen))
	}
	return e.scan(nil, r, true)
}

// failedScan is a scan that yields only err.
func failedScan(err error) iter.Seq2[storage.KV, error] {
	return func(yield func(storage.KV, error) bool) { yield(storage.KV{}, err) }
}

// Batch buffers: the first batch of a scan is small, since many scans stop
// after a row or two (a claim, a page); each later one doubles, up to
// maxBatch, which is enough to make the call into RocksDB a small part of
// a batch's cost. A row larger than the buffer gets a buffer of its own.
const (
	minBatch = 1 << 10
	maxBatch = 16 << 10
)

// cursor is one scan's C cursor (cursor.c): its RocksDB iterator, with the
// read options and upper bound the iterator uses.
type cursor struct {
	snap *Snapshot // nil for a scan of the engine

	// native is nil once the cursor is freed, exactly once: by the fill
	// that reaches the end of the range, by the scan's end, or by a Close
	// under the scan, whichever comes first. It is read and cleared under
	// the engine's mu, and the cursor is registered (Engine.cursors) for
	// as long as it is not nil.
	native *cCursor

	batch int // size of the next buffer, before a large row's need
	need  int // room the next row takes, when known
}

// release frees the cursor; the caller holds the engine's mu for writing
// and removes it from the registry.
func (c *cursor) release() {
	closeNative(c.native)
	c.native = nil
}

// buffer returns the buffer of c's next fill. A scan whose rows the caller
// owns (Scan) gets a new one every time, of the batch size; a lent scan
// (ScanView) reuses buf, replacing it only after its first, small batch
// and for a row that does not fit.
func (c *cursor) buffer(buf []byte, lend bool) ([]byte, error) {
	size := max(c.batch, c.need)
	if lend && buf != nil {
		size = max(maxBatch, c.need)
		if len(buf) >= size {
			return buf, nil
		}
	}
	if size > math.MaxUint32 {
		// The offsets of a batch are 32-bit; no row the engine writes
		// comes near (storage.MaxValueLen).
		return nil, fmt.Errorf("scan: %w: a row of %d bytes", storage.ErrCorrupt, size)
	}
	return make([]byte, size), nil
}

// scan is Scan, or ScanView when lend is set, on behalf of snapshot s when
// not nil. The deferred closeCursor runs whether the loop ends by
// exhaustion, break, error or a panic in its body.
func (e *Engine) scan(s *Snapshot, r storage.ScanRange, lend bool) iter.Seq2[storage.KV, error] {
	return func(yield func(storage.KV, error) bool) {
		c, err := e.openCursor(s, &r)
		if err != nil {
			yield(storage.KV{}, err)
			return
		}
		if c == nil {
			return // no row in r
		}
		defer e.closeCursor(c)
		var buf []byte
		for {
			var f nativeFill
			buf, f, err = e.fill(c, buf, lend)
			if !e.yieldRows(s, buf, f.rows, yield) {
				return
			}
			switch {
			case err != nil:
				yield(storage.KV{}, err)
				return
			case f.done:
				if e.closedUnder(s) {
					yield(storage.KV{}, storage.ErrClosed)
				}
				return
			}
		}
	}
}

// openCursor creates the cursor of r, positioned at its lower bound, and
// registers it for Close; it returns a nil cursor when r holds no row.
//
// A range inside one scope iterates in prefix mode (prefix_same_as_start),
// which lets RocksDB skip files by prefix bloom; the upper bound stops it at
// the range's end. The system full-family sweep crosses scopes, where prefix
// mode would stop at the first scope's end, so it uses total_order_seek.
// Setting both is never right: total order disables the prefix bloom and
// the prefix check.
func (e *Engine) openCursor(s *Snapshot, r *storage.ScanRange) (*cursor, error) {
	if !r.Valid() {
		return nil, storage.ErrInvalidRange
	}
	if err := e.enter(s); err != nil {
		return nil, fmt.Errorf("scan %s: %w", r, err)
	}
	defer e.mu.RUnlock()
	var snap *cSnapshot
	if s != nil {
		snap = s.native
	}
	lower, upper := r.Bounds()
	o, err := openNative(&e.native, e.native.families[r.Family()], snap, r.WithinOneScope(), lower, upper)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", r, classify(err))
	}
	if o.cursor == nil {
		return nil, nil
	}
	c := &cursor{snap: s, native: o.cursor, batch: minBatch, need: o.first}
	e.live.Lock()
	e.cursors[c] = struct{}{}
	e.live.Unlock()
	return c, nil
}

// fill copies the next rows of c into the buffer that c.buffer returns for
// buf and lend, and returns that buffer. It holds mu for reading, so that
// Close cannot free the cursor under it. A cursor that Close freed returns
// storage.ErrClosed; the fill that ends the range (f.done) frees the cursor
// itself.
func (e *Engine) fill(c *cursor, buf []byte, lend bool) (_ []byte, f nativeFill, err error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if c.native == nil {
		return nil, f, storage.ErrClosed
	}
	if buf, err = c.buffer(buf, lend); err != nil {
		return nil, f, err
	}
	f, err = fillNative(c.native, buf)
	c.batch, c.need = min(2*c.batch, maxBatch), f.need
	if f.done {
		c.native = nil
		e.unregister(c)
	}
	if err != nil {
		return buf, f, fmt.Errorf("scan: %w", classify(err))
	}
	return buf, f, nil
}

// yieldRows yields the n rows that a fill copied into buf and reports
// whether the loop wants more. The rows are already Go memory, but a scan
// yields no row once its engine or snapshot has closed: it checks before
// each row, and ends with storage.ErrClosed.
func (e *Engine) yieldRows(s *Snapshot, buf []byte, n int, yield func(storage.KV, error) bool) bool {
	start := 0
	for i := range n {
		if e.closedUnder(s) {
			yield(storage.KV{}, storage.ErrClosed)
			return false
		}
		slot := len(buf) - (i+1)*slotLen
		keyEnd := int(binary.NativeEndian.Uint32(buf[slot:]))
		end := int(binary.NativeEndian.Uint32(buf[slot+4:]))
		if !yield(storage.KV{Key: buf[start:keyEnd:keyEnd], Value: buf[keyEnd:end:end]}, nil) {
			return false
		}
		start = end
	}
	return true
}

// closedUnder reports whether the engine, or snapshot s when not nil, has
// closed.
func (e *Engine) closedUnder(s *Snapshot) bool {
	return e.closed.Load() || (s != nil && s.closed.Load())
}

// closeCursor frees c unless the end of its range or a Close already has.
func (e *Engine) closeCursor(c *cursor) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if c.native == nil {
		return
	}
	closeNative(c.native)
	c.native = nil
	e.unregister(c)
}

// unregister removes c from the cursors that Close frees.
func (e *Engine) unregister(c *cursor) {
	e.live.Lock()
	delete(e.cursors, c)
	e.live.Unlock()
}
