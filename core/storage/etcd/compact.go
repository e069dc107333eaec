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
// current revision, through the quorum (physically: the call returns once
// the compaction is applied), then defragments the backend of every member
// of the cluster (its member list, read through the quorum), so that the
// freed pages of its bbolt file are released rather than left on disk.
//
// A member that is down, or does not answer within Config.Timeout, cannot
// be defragmented: the compaction still holds for the quorum (reads, of
// any revision, no longer see the rows), but that member's file may still
// hold the bytes until it is defragmented. CompactRanges then returns a
// *storage.CompactPendingError naming the members left (by id, in hex, as
// etcdctl does); calling it again once they are back finishes them.
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
	return e.defragmentMembers()
}

// defragmentMembers defragments every member of the cluster, and returns a
// *storage.CompactPendingError naming those it could not.
func (e *Engine) defragmentMembers() error {
	ctx, cancel := e.callContext()
	list, err := e.client.MemberList(ctx)
	cancel()
	if err != nil {
		return fmt.Errorf("etcd engine: list the members to defragment: %w: %w", storage.ErrCompactIncomplete, e.classify("member list", err))
	}
	var pending *storage.CompactPendingError
	for _, m := range list.Members {
		err := errors.New("the member serves no client URL")
		for _, url := range m.ClientURLs {
			ctx, cancel := e.callContext()
			_, err = e.client.Defragment(ctx, url)
			cancel()
			if err == nil {
				break
			}
			err = e.classify(fmt.Sprintf("defragment member %x at %s", m.ID, url), err)
		}
		if err != nil {
			if pending == nil {
				pending = &storage.CompactPendingError{Err: err}
			}
			pending.Members = append(pending.Members, fmt.Sprintf("%x", m.ID))
		}
	}
	if pending != nil {
		return fmt.Errorf("etcd engine: defragment: %w", pending)
	}
	return nil
}
