package etcd

import (
	"fmt"
	"iter"
	"sync/atomic"

	"telha.dev/core/storage"
)

// Snapshot is a consistent read-only view of an Engine: one revision of the
// cluster, read with etcd's WithRev. It holds nothing on the cluster, so it
// costs nothing to keep; but the cluster's compaction (etcd's
// --auto-compaction-retention, or an operator's compact) discards old
// revisions, and a snapshot whose revision is gone reads ErrCompacted.
// Hold it briefly.
type Snapshot struct {
	e      *Engine
	rev    int64
	closed atomic.Bool
}

var _ storage.Snapshot = (*Snapshot)(nil)

// Snapshot returns a view of the engine as of now: the revision of a
// linearizable read, so it holds every write acknowledged before the call.
func (e *Engine) Snapshot() (storage.Snapshot, error) {
	if err := e.ready(); err != nil {
		return nil, fmt.Errorf("etcd engine: snapshot: %w", err)
	}
	if err := e.enter(); err != nil {
		return nil, fmt.Errorf("etcd engine: snapshot: %w", err)
	}
	_, rev, err := e.readMarker()
	if err != nil {
		return nil, fmt.Errorf("etcd engine: snapshot: %w", err)
	}
	return &Snapshot{e: e, rev: rev}, nil
}

// Revision returns the cluster revision the snapshot reads, 0 for a
// snapshot that was never opened.
func (s *Snapshot) Revision() int64 {
	if s == nil {
		return 0
	}
	return s.rev
}

// engine returns the snapshot's engine, or nil for a snapshot that was
// never opened (a nil pointer, or a zero Snapshot), whose calls then
// return storage.ErrNotOpen.
func (s *Snapshot) engine() *Engine {
	if s == nil {
		return nil
	}
	return s.e
}

// Get returns the value stored at k as of the snapshot, or
// storage.ErrNotFound.
func (s *Snapshot) Get(k storage.Key) ([]byte, error) { return s.engine().get(s, k) }

// Scan yields the rows of r as of the snapshot, in ascending key order.
func (s *Snapshot) Scan(r storage.ScanRange) iter.Seq2[storage.KV, error] {
	return s.engine().scan(s, r)
}

// Close releases the snapshot; its scans in progress end with
// storage.ErrClosed at their next row. Later calls, Close included, return
// storage.ErrClosed.
func (s *Snapshot) Close() error {
	if err := s.engine().ready(); err != nil {
		return fmt.Errorf("etcd snapshot: close: %w", err)
	}
	if s.closed.Swap(true) {
		return fmt.Errorf("etcd snapshot: close: %w", storage.ErrClosed)
	}
	return nil
}
