package etcd

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"telha.dev/core/storage"
)

// Engine is a storage.Engine on an etcd cluster. It is safe for concurrent
// use. It holds no lock across a call to the cluster: every call is one or
// a few requests, each under Config.Timeout, and Close cancels the calls in
// flight.
type Engine struct {
	cfg    Config
	keys   keyspace
	client *clientv3.Client

	// ctx is the parent of every call; Close cancels it, so that a call in
	// flight returns storage.ErrClosed at once instead of at its deadline.
	ctx    context.Context
	cancel context.CancelFunc
	closed atomic.Bool

	// writing is held shared by each write in flight, from its check of
	// closed to its answer, and exclusively by Close before it cancels
	// calls: a write that Close would cut off could be committed by the
	// cluster and still report ErrClosed.
	writing sync.RWMutex
}

var _ storage.Engine = (*Engine)(nil)

// grpcOverhead is what gRPC adds to a request around the message etcd
// limits (etcd's server allows the same).
const grpcOverhead = 512 * 1024

// keepAliveTime is how often the client pings an idle connection, and
// keepAliveTimeout how long it waits for the answer, so that a member that
// vanished without closing its connections (a partition, a frozen machine)
// is noticed.
const (
	keepAliveTime    = 10 * time.Second
	keepAliveTimeout = 5 * time.Second
)

// Open connects to the cluster at cfg.Endpoints and returns an engine on
// cfg.Namespace. It fails with ErrUnavailable when no quorum answers within
// cfg.Timeout, and with ErrRestoreIncomplete when the namespace holds a
// Restore that did not finish.
func Open(cfg Config) (*Engine, error) {
	e, err := open(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcd engine: open: %w", err)
	}
	restoring, _, err := e.readMarker()
	if err == nil && restoring {
		err = ErrRestoreIncomplete
	}
	if err != nil {
		_ = e.Close()
		return nil, fmt.Errorf("etcd engine: open %v namespace %q: %w", e.cfg.Endpoints, e.cfg.Namespace, err)
	}
	return e, nil
}

// open returns an engine on cfg without a call to the cluster.
func open(cfg Config) (*Engine, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:            cfg.Endpoints,
		DialTimeout:          cfg.Timeout,
		DialKeepAliveTime:    keepAliveTime,
		DialKeepAliveTimeout: keepAliveTimeout,
		MaxCallSendMsgSize:   cfg.MaxRequestBytes + grpcOverhead,
		// The engine reports every failure to its caller as an error.
		Logger: zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("connect to %v: %w", cfg.Endpoints, err)
	}
	e := &Engine{cfg: cfg, keys: keyspace{ns: []byte(cfg.Namespace)}, client: client}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	return e, nil
}

// readMarker reads the restore marker with a linearizable read, and
// returns whether it is present and the cluster's revision as of the read.
// It is the engine's cheapest call that proves a quorum answers.
func (e *Engine) readMarker() (present bool, rev int64, err error) {
	ctx, cancel := e.callContext()
	defer cancel()
	resp, err := e.client.Get(ctx, e.keys.meta(restoreMarker), clientv3.WithCountOnly())
	if err != nil {
		return false, 0, e.classify("read the restore marker", err)
	}
	return resp.Count != 0, resp.Header.Revision, nil
}

// callContext returns the context of one request: the engine's, with
// Config.Timeout.
func (e *Engine) callContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(e.ctx, e.cfg.Timeout)
}

// classify is the package's classify with the engine's closed state.
func (e *Engine) classify(op string, err error) error {
	return classify(op, err, e.closed.Load())
}

// ready returns storage.ErrNotOpen for an engine that was never opened: a
// nil pointer, or a zero Engine. Every method calls it first.
func (e *Engine) ready() error {
	if e == nil || e.client == nil {
		return storage.ErrNotOpen
	}
	return nil
}

// enterWrite is enter for a write, which then holds e.writing shared until
// it has its answer: Close waits for it.
func (e *Engine) enterWrite() error {
	e.writing.RLock()
	if e.closed.Load() {
		e.writing.RUnlock()
		return storage.ErrClosed
	}
	return nil
}

// enter returns storage.ErrClosed once the engine is closed.
func (e *Engine) enter() error {
	if e.closed.Load() {
		return storage.ErrClosed
	}
	return nil
}

// Put stores value at k, as a transaction of one mutation.
func (e *Engine) Put(k storage.Key, value []byte) error {
	return e.apply("put", slices.All([]storage.Mutation{{Kind: storage.MutationPut, Key: k, Value: value}}), nil)
}

// Delete removes k.
func (e *Engine) Delete(k storage.Key) error {
	return e.apply("delete", slices.All([]storage.Mutation{{Kind: storage.MutationDelete, Key: k}}), nil)
}

// Write applies b atomically, as one etcd transaction. Every write of the
// engine is durable on a quorum of members (each has synced it to its
// write-ahead log) before it returns. The conditions of b are the
// transaction's comparisons (Txn().If): etcd evaluates them and applies
// the operations in one step, or applies nothing, which the engine reports
// as storage.ErrConflict.
func (e *Engine) Write(b *storage.Batch) error {
	if err := e.ready(); err != nil {
		return fmt.Errorf("etcd engine: write batch: %w", err)
	}
	if err := b.Err(); err != nil {
		return fmt.Errorf("etcd engine: write batch: %w", err)
	}
	return e.apply("write batch", b.All(), b.Conditions())
}

// WriteDurable is Write: every write is already durable on a quorum.
func (e *Engine) WriteDurable(b *storage.Batch) error { return e.Write(b) }

// apply checks muts and conds (nil for none) against the cluster's limits
// and commits them as one transaction. A refused batch applies nothing.
func (e *Engine) apply(op string, muts iter.Seq2[int, storage.Mutation], conds iter.Seq2[int, storage.Condition]) error {
	if err := e.ready(); err != nil {
		return fmt.Errorf("etcd engine: %s: %w", op, err)
	}
	txn, err := e.txn(muts, conds)
	if err != nil {
		return fmt.Errorf("etcd engine: %s: %w", op, err)
	}
	if err := e.enterWrite(); err != nil {
		return fmt.Errorf("etcd engine: %s: %w", op, err)
	}
	defer e.writing.RUnlock()
	if len(txn.ops) == 0 && len(txn.cmps) == 0 {
		return nil
	}
	ctx, cancel := e.callContext()
	defer cancel()
	resp, err := e.client.Txn(ctx).If(txn.cmps...).Then(txn.ops...).Commit()
	if err != nil {
		return e.classify(fmt.Sprintf("etcd engine: %s of %d keys", op, len(txn.ops)), err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("etcd engine: %s of %d keys: %d conditions: %w", op, len(txn.ops), len(txn.cmps), storage.ErrConflict)
	}
	return nil
}

// DeleteRange removes every key of r with one range deletion, a single
// atomic request whatever the number of keys.
func (e *Engine) DeleteRange(r storage.ScanRange) error {
	if err := e.ready(); err != nil {
		return fmt.Errorf("etcd engine: delete range: %w", err)
	}
	if !r.Valid() {
		return fmt.Errorf("etcd engine: delete range: %w", storage.ErrInvalidRange)
	}
	if err := e.enterWrite(); err != nil {
		return fmt.Errorf("etcd engine: delete range %s: %w", r, err)
	}
	defer e.writing.RUnlock()
	start, end := e.keys.span(&r)
	if start >= end {
		return nil // an empty range deletes nothing, as in MemoryEngine
	}
	ctx, cancel := e.callContext()
	defer cancel()
	if _, err := e.client.Delete(ctx, start, clientv3.WithRange(end)); err != nil {
		return e.classify(fmt.Sprintf("etcd engine: delete range %s", r), err)
	}
	return nil
}

// Close ends the engine. It waits for the writes in flight to get their
// answer (each within Config.Timeout), so that a write that reports
// storage.ErrClosed was never sent; reads in flight and open scans end with
// ErrClosed, open snapshots read ErrClosed. Later calls, Close included,
// return ErrClosed.
func (e *Engine) Close() error {
	if err := e.ready(); err != nil {
		return fmt.Errorf("etcd engine: close: %w", err)
	}
	if e.closed.Swap(true) {
		return fmt.Errorf("etcd engine: close: %w", storage.ErrClosed)
	}
	e.writing.Lock() // the writes in flight have their answers; later ones see closed
	defer e.writing.Unlock()
	e.cancel()
	if err := e.client.Close(); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("etcd engine: close: %w", err)
	}
	return nil
}
