package etcd

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"telha.dev/core/storage"
)

// Errors of the etcd engine. Each is wrapped with the operation and the
// cluster's own error; test with errors.Is. The engine also returns the
// storage package's errors, as every engine does: ErrInvalidKey,
// ErrInvalidRange, ErrUnknownKind, ErrNilBatch, ErrNotFound, ErrClosed,
// ErrNotOpen; ErrValueTooLarge for a value over the cluster's request size
// limit (far below storage.MaxValueLen: see Engine.MaxValueLen); and
// ErrNoSpace when the cluster refuses writes because its storage quota is
// exhausted (etcd's NOSPACE alarm; reads still work, and an operator must
// compact, defragment and disarm the alarm).
var (
	// ErrUnavailable reports a call that got no answer from a quorum within
	// Config.Timeout: a majority of members is down or unreachable, or no
	// leader could be elected in time. A write that fails with it may or
	// may not have been applied; read it back to know. It also wraps the
	// cluster's error, often context.DeadlineExceeded.
	ErrUnavailable = errors.New("etcd cluster unavailable")

	// ErrCompacted reports a read at a revision the cluster has compacted
	// away: a snapshot held, or a scan paused in its loop body, for longer
	// than the cluster keeps history, or across another process's
	// compaction. It is storage.ErrStale.
	ErrCompacted = fmt.Errorf("snapshot revision compacted: %w", storage.ErrStale)

	// ErrBatchTooLarge reports a batch with more mutations than the
	// cluster's limit on operations per transaction (Config.MaxTxnOps), or
	// whose request exceeds the cluster's request size limit
	// (Config.MaxRequestBytes). Nothing of it is applied: a batch is one
	// transaction and is never split. Write fewer mutations per batch.
	ErrBatchTooLarge = errors.New("batch exceeds the cluster's transaction limits")

	// ErrRestoreIncomplete reports a namespace whose Restore did not finish:
	// it holds part of a checkpoint. Open refuses it; run Restore again.
	ErrRestoreIncomplete = errors.New("namespace holds an interrupted restore")

	// ErrNotEmpty reports a Restore into a namespace that already holds
	// rows.
	ErrNotEmpty = errors.New("namespace is not empty")

	// ErrProtocol reports an answer from the cluster that breaks the
	// engine's invariants, such as a key outside the range asked for.
	ErrProtocol = errors.New("unexpected answer from the etcd cluster")
)

// classify wraps an error of the etcd client in the engine's sentinel for
// its cause, with op for context. closed reports whether the engine has
// been closed: a call that failed once the engine was closed failed because
// of it (Close cancels calls in flight and closes the connections, which
// the client reports as cancellations or unavailability), so it reports
// storage.ErrClosed.
func classify(op string, err error, closed bool) error {
	var sentinel error
	switch code := errorCode(err); {
	case closed:
		sentinel = storage.ErrClosed
	case errors.Is(err, rpctypes.ErrCompacted):
		sentinel = ErrCompacted
	case errors.Is(err, rpctypes.ErrTooManyOps), errors.Is(err, rpctypes.ErrRequestTooLarge),
		code == codes.ResourceExhausted && !errors.Is(err, rpctypes.ErrNoSpace) && !errors.Is(err, rpctypes.ErrTooManyRequests):
		// ResourceExhausted without an etcd error is gRPC refusing a
		// message over its size limit.
		sentinel = ErrBatchTooLarge
	case errors.Is(err, rpctypes.ErrNoSpace):
		sentinel = storage.ErrNoSpace
	case errors.Is(err, context.DeadlineExceeded), code == codes.DeadlineExceeded, code == codes.Unavailable,
		errors.Is(err, rpctypes.ErrTooManyRequests):
		sentinel = ErrUnavailable
	default:
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("%s: %w: %w", op, sentinel, err)
}

// errorCode returns the gRPC code of an error of the etcd client: the code
// of an etcd server error, or of a gRPC status, or codes.Unknown.
func errorCode(err error) codes.Code {
	var etcdErr rpctypes.EtcdError
	if errors.As(err, &etcdErr) {
		return etcdErr.Code()
	}
	if s, ok := status.FromError(err); ok {
		return s.Code()
	}
	return codes.Unknown
}
