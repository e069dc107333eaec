package etcd

import (
	"fmt"
	"iter"

	clientv3 "go.etcd.io/etcd/client/v3"

	"telha.dev/core/storage"
)

// Get returns the value stored at k, or storage.ErrNotFound, with a
// linearizable read: it sees every write acknowledged before it began.
func (e *Engine) Get(k storage.Key) ([]byte, error) { return e.get(nil, k) }

// Scan yields the rows of r in ascending key order, in pages of
// Config.PageSize rows, every page read at the revision of the first: a
// scan is one consistent state however long it runs. The loop body may
// call the engine; no lock is held while it runs. A scan whose revision is
// compacted away while its loop body runs ends with ErrCompacted.
func (e *Engine) Scan(r storage.ScanRange) iter.Seq2[storage.KV, error] { return e.scan(nil, r) }

// enterView returns storage.ErrClosed once the engine, or snapshot s when
// not nil, is closed.
func (e *Engine) enterView(s *Snapshot) error {
	if e.closed.Load() || s != nil && s.closed.Load() {
		return storage.ErrClosed
	}
	return nil
}

// revisionOf returns the revision a read of s uses: the snapshot's, or 0,
// etcd's "latest", for the engine.
func revisionOf(s *Snapshot) int64 {
	if s == nil {
		return 0
	}
	return s.rev
}

// get is Get as of snapshot s when not nil. An absent key returns the bare
// storage.ErrNotFound, as every engine does on this hot path.
func (e *Engine) get(s *Snapshot, k storage.Key) ([]byte, error) {
	if err := e.ready(); err != nil {
		return nil, fmt.Errorf("etcd engine: get: %w", err)
	}
	if !k.Valid() {
		return nil, fmt.Errorf("etcd engine: get: %w", storage.ErrInvalidKey)
	}
	if err := e.enterView(s); err != nil {
		return nil, fmt.Errorf("etcd engine: get: %w", err)
	}
	ctx, cancel := e.callContext()
	defer cancel()
	resp, err := e.client.Get(ctx, e.keys.key(&k), clientv3.WithRev(revisionOf(s)))
	if err != nil {
		return nil, e.classify(fmt.Sprintf("etcd engine: get %s", k), err)
	}
	if len(resp.Kvs) == 0 {
		return nil, storage.ErrNotFound
	}
	if v := resp.Kvs[0].Value; v != nil {
		return v, nil
	}
	return []byte{}, nil
}

// scan is Scan as of snapshot s when not nil. Each page is one request
// under Config.Timeout; the rows of a page are yielded without a request in
// flight. Between rows the scan checks that its engine and snapshot are
// open, so that Close ends it with storage.ErrClosed at its next row.
func (e *Engine) scan(s *Snapshot, r storage.ScanRange) iter.Seq2[storage.KV, error] {
	return func(yield func(storage.KV, error) bool) {
		if err := e.ready(); err != nil {
			yield(storage.KV{}, fmt.Errorf("etcd engine: scan: %w", err))
			return
		}
		if !r.Valid() {
			yield(storage.KV{}, fmt.Errorf("etcd engine: scan: %w", storage.ErrInvalidRange))
			return
		}
		start, end := e.keys.span(&r)
		rev := revisionOf(s)
		for start < end {
			if err := e.enterView(s); err != nil {
				yield(storage.KV{}, fmt.Errorf("etcd engine: scan %s: %w", r, err))
				return
			}
			resp, err := e.page(start, end, rev)
			if err != nil {
				yield(storage.KV{}, fmt.Errorf("etcd engine: scan %s: %w", r, err))
				return
			}
			if rev == 0 {
				rev = resp.Header.Revision
			}
			for _, kv := range resp.Kvs {
				key, err := e.keys.telhaKey(r.Family(), kv.Key, start, end)
				if err == nil {
					err = e.enterView(s)
				}
				if err != nil {
					yield(storage.KV{}, fmt.Errorf("etcd engine: scan %s: %w", r, err))
					return
				}
				value := kv.Value
				if value == nil {
					value = []byte{}
				}
				if !yield(storage.KV{Key: key, Value: value}, nil) {
					return
				}
			}
			if !resp.More || len(resp.Kvs) == 0 {
				return
			}
			// The smallest key after the page's last.
			start = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
		}
	}
}

// page reads up to Config.PageSize rows of [start, end) at revision rev,
// 0 meaning the latest.
func (e *Engine) page(start, end string, rev int64) (*clientv3.GetResponse, error) {
	ctx, cancel := e.callContext()
	defer cancel()
	resp, err := e.client.Get(ctx, start, clientv3.WithRange(end), clientv3.WithRev(rev), clientv3.WithLimit(int64(e.cfg.PageSize)))
	if err != nil {
		return nil, e.classify(fmt.Sprintf("read page from %x at revision %d", start, rev), err)
	}
	return resp, nil
}
