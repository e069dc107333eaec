package rocksdb

import (
	"fmt"
	"iter"
	"runtime"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// Scan yields the rows of r in ascending key order. Each row is copied out
// of RocksDB's memory, so it stays valid after the loop moves on.
func (e *Engine) Scan(r storage.ScanRange) iter.Seq2[storage.KV, error] {
	if e == nil {
		return failedScan(fmt.Errorf("scan: %w", storage.ErrNotOpen))
	}
	return e.scan(nil, r)
}

// failedScan is a scan that yields only err.
func failedScan(err error) iter.Seq2[storage.KV, error] {
	return func(yield func(storage.KV, error) bool) { yield(storage.KV{}, err) }
}

// cursor is one scan's RocksDB iterator together with what must outlive it:
// its ReadOptions, and the pinned upper bound those options point to.
type cursor struct {
	snap *Snapshot // nil for a scan of the engine
	ro   *grocksdb.ReadOptions
	it   *grocksdb.Iterator
	pin  runtime.Pinner

	// released is set, under the engine's mu, by whichever of the scan or a
	// Close gets there first; the other then leaves the iterator alone, so
	// it is destroyed exactly once.
	released bool
}

// release destroys the iterator, then the options and the bound it uses.
func (c *cursor) release() {
	c.it.Close()
	c.ro.Destroy()
	c.pin.Unpin()
	c.released = true
}

// scan is Scan on behalf of snapshot s when not nil. The deferred
// closeCursor runs whether the loop ends by exhaustion, break, error or a
// panic in its body.
func (e *Engine) scan(s *Snapshot, r storage.ScanRange) iter.Seq2[storage.KV, error] {
	return func(yield func(storage.KV, error) bool) {
		c, err := e.openCursor(s, &r)
		if err != nil {
			yield(storage.KV{}, err)
			return
		}
		defer e.closeCursor(c)
		for {
			kv, ok, err := e.step(c)
			switch {
			case err != nil:
				yield(storage.KV{}, err)
				return
			case !ok:
				return
			case !yield(kv, nil):
				return
			}
		}
	}
}

// openCursor creates and registers the iterator of r, positioned at its
// lower bound.
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
	lower, upper := r.Bounds()
	c := &cursor{snap: s, ro: grocksdb.NewDefaultReadOptions()}
	if s != nil {
		c.ro.SetSnapshot(s.snap)
	}
	if r.WithinOneScope() {
		c.ro.SetPrefixSameAsStart(true)
	} else {
		c.ro.SetTotalOrderSeek(true)
	}
	if upper != nil {
		// RocksDB keeps a pointer to the bound for the iterator's life,
		// which cgo allows only for pinned memory.
		c.pin.Pin(&upper[0])
		c.ro.SetIterateUpperBound(upper)
	}
	c.it = e.db.NewIteratorCF(c.ro, e.families[r.Family()])
	c.it.Seek(lower)
	e.live.Lock()
	e.cursors[c] = struct{}{}
	e.live.Unlock()
	return c, nil
}

// step returns the row under c and advances it; ok is false at the end of
// the range. The key and value are copied into one allocation, since
// RocksDB's slices die when the iterator moves. A cursor released by Close
// under the scan returns storage.ErrClosed.
func (e *Engine) step(c *cursor) (kv storage.KV, ok bool, err error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if c.released {
		return kv, false, storage.ErrClosed
	}
	if !c.it.Valid() {
		if err := c.it.Err(); err != nil {
			return kv, false, fmt.Errorf("scan: %w", classify(err))
		}
		return kv, false, nil
	}
	k, v := c.it.Key().Data(), c.it.Value().Data()
	buf := make([]byte, len(k)+len(v))
	n := copy(buf, k)
	copy(buf[n:], v)
	c.it.Next()
	return storage.KV{Key: buf[:n:n], Value: buf[n:]}, true, nil
}

// closeCursor releases c unless a Close already has.
func (e *Engine) closeCursor(c *cursor) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if c.released {
		return
	}
	c.release()
	e.live.Lock()
	delete(e.cursors, c)
	e.live.Unlock()
}
