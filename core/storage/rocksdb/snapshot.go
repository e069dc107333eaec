package rocksdb

import (
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// Snapshot is a consistent read-only view of an Engine: a RocksDB snapshot
// and the ReadOptions that name it. Release it with Close; an open snapshot
// keeps RocksDB from dropping the versions it sees. Only Engine.Snapshot
// makes one: the zero Snapshot, and a nil *Snapshot, refuse every call with
// storage.ErrNotOpen.
type Snapshot struct {
	e      *Engine
	snap   *grocksdb.Snapshot
	native *cSnapshot // snap's C handle, for the scan cursor
	ro     *grocksdb.ReadOptions

	// closed is set by the snapshot's own Close, under e.mu held for
	// writing; atomic, as Engine.closed is.
	closed atomic.Bool
}

var (
	_ storage.Snapshot    = (*Snapshot)(nil)
	_ storage.ViewScanner = (*Snapshot)(nil)
)

// Snapshot returns a view of the store as of now.
func (e *Engine) Snapshot() (storage.Snapshot, error) {
	if err := e.enter(nil); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	defer e.mu.RUnlock()
	s := &Snapshot{e: e, snap: e.db.NewSnapshot(), ro: grocksdb.NewDefaultReadOptions()}
	s.native = nativeSnapshot(s.snap)
	s.ro.SetSnapshot(s.snap)
	e.live.Lock()
	e.snapshots[s] = struct{}{}
	e.live.Unlock()
	return s, nil
}

// Get returns a copy of the value stored at k as of the snapshot, or
// storage.ErrNotFound.
func (s *Snapshot) Get(k storage.Key) ([]byte, error) {
	if s == nil || s.e == nil {
		return nil, fmt.Errorf("snapshot get: %w", storage.ErrNotOpen)
	}
	return s.e.get(s.ro, s, k)
}

// Scan yields the rows of r as of the snapshot, in ascending key order.
func (s *Snapshot) Scan(r storage.ScanRange) iter.Seq2[storage.KV, error] {
	if s == nil || s.e == nil {
		return failedScan(fmt.Errorf("snapshot scan: %w", storage.ErrNotOpen))
	}
	return s.e.scan(s, r, false)
}

// ScanView is Scan with borrowed rows, as Engine.ScanView.
func (s *Snapshot) ScanView(r storage.ScanRange) iter.Seq2[storage.KV, error] {
	if s == nil || s.e == nil {
		return failedScan(fmt.Errorf("snapshot scan view: %w", storage.ErrNotOpen))
	}
	return s.e.scan(s, r, true)
}

// Close releases the snapshot, ending its scans in progress with
// storage.ErrClosed. Later calls, Close included, return storage.ErrClosed.
// Closing a snapshot after its engine is allowed: the engine's Close has
// already released it.
func (s *Snapshot) Close() error {
	if s == nil || s.e == nil {
		return fmt.Errorf("close snapshot: %w", storage.ErrNotOpen)
	}
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if s.closed.Load() {
		return fmt.Errorf("close snapshot: %w", storage.ErrClosed)
	}
	s.closed.Store(true)
	if e.closed.Load() {
		return nil
	}
	e.live.Lock()
	for c := range e.cursors {
		if c.snap == s {
			c.release()
			delete(e.cursors, c)
		}
	}
	delete(e.snapshots, s)
	e.live.Unlock()
	s.release()
	return nil
}

// release frees the RocksDB snapshot, once, by the snapshot's Close or the
// engine's; the caller holds e.mu for writing.
func (s *Snapshot) release() {
	s.e.db.ReleaseSnapshot(s.snap)
	s.ro.Destroy()
}
