package etcd

import (
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"telha.dev/core/storage"
)

// CompactRanges makes the deletion of the rows of rs physical as far as a
// client of etcd can (storage.Compactor): etcd keeps every revision of a
// key until its history is compacted, so a deleted row stays readable at
// an older revision. The engine compacts the cluster's history up to the
// current revision (physically: the call returns once every member has
// applied it), then defragments every member's backend, so that the freed
// pages of its bbolt file are released rather than left on disk.
//
// The compaction is of the whole cluster's history, not of rs alone: every
// snapshot and paused scan of any namespace reads ErrCompacted after it.
// What a client cannot reach is not covered: each member's write-ahead log
// and its snapshot files keep the deleted rows until the member rotates
// them (after --snapshot-count entries, keeping --max-wals files).
func (e *Engine) CompactRanges(rs []storage.ScanRange) error {
	if err := e.ready(); err != nil {
		return fmt.Errorf("etcd engine: compact: %w", err)
	}
	for _, r := range rs {
		if !r.Valid() {
			return fmt.Errorf("etcd engine: compact: %w", storage.ErrInvalidRange)
		}
	}
	if err := e.enter(); err != nil {
		return fmt.Errorf("etcd engine: compact: %w", err)
	}
	_, rev, err := e.readMarker()
	if err != nil {
		return fmt.Errorf("etcd engine: compact: %w", err)
	}
	ctx, cancel := e.callContext()
	defer cancel()
	if _, err := e.client.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		return e.classify(fmt.Sprintf("etcd engine: compact history to revision %d", rev), err)
	}
	for _, ep := range e.client.Endpoints() {
		ctx, cancel := e.callContext()
		_, err := e.client.Defragment(ctx, ep)
		cancel()
		if err != nil {
			return fmt.Errorf("etcd engine: defragment %s: %w: %w", ep, storage.ErrCompactIncomplete, e.classify("defragment", err))
		}
	}
	return nil
}
