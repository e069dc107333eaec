package etcd

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"telha.dev/core/storage"
)

// TestClassify maps the errors the etcd client returns to the engine's
// sentinels, keeping the cluster's error in the chain.
func TestClassify(t *testing.T) {
	tests := []struct {
		err    error
		closed bool
		want   error
	}{
		{context.DeadlineExceeded, false, ErrUnavailable},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), false, ErrUnavailable},
		{status.Error(codes.DeadlineExceeded, "deadline"), false, ErrUnavailable},
		{status.Error(codes.Unavailable, "connection refused"), false, ErrUnavailable},
		{rpctypes.ErrNoLeader, false, ErrUnavailable},
		{rpctypes.ErrTimeout, false, ErrUnavailable},
		{rpctypes.ErrTimeoutDueToLeaderFail, false, ErrUnavailable},
		{rpctypes.ErrLeaderChanged, false, ErrUnavailable},
		{rpctypes.ErrTooManyRequests, false, ErrUnavailable},
		{rpctypes.ErrCompacted, false, ErrCompacted},
		{rpctypes.ErrTooManyOps, false, ErrBatchTooLarge},
		{rpctypes.ErrRequestTooLarge, false, ErrBatchTooLarge},
		{status.Error(codes.ResourceExhausted, "grpc: trying to send message larger than max"), false, ErrBatchTooLarge},
		{rpctypes.ErrNoSpace, false, storage.ErrNoSpace},
		{context.Canceled, true, storage.ErrClosed},
		{status.Error(codes.Canceled, "grpc: the client connection is closing"), true, storage.ErrClosed},
		{status.Error(codes.Unavailable, "transport is closing"), true, storage.ErrClosed},
	}
	for _, tt := range tests {
		got := classify("op", tt.err, tt.closed)
		if !errors.Is(got, tt.want) || !errors.Is(got, tt.err) {
			t.Errorf("classify(%v, closed %v) = %v; want it to wrap %v and the cause", tt.err, tt.closed, got, tt.want)
		}
	}
	// A cancellation while the engine is open is not a closed engine; an
	// error the engine has no sentinel for keeps only its own.
	sentinels := []error{ErrUnavailable, ErrCompacted, ErrBatchTooLarge, storage.ErrValueTooLarge, storage.ErrNoSpace, storage.ErrClosed}
	for _, err := range []error{context.Canceled, rpctypes.ErrPermissionDenied, errors.New("other")} {
		got := classify("op", err, false)
		for _, s := range sentinels {
			if errors.Is(got, s) {
				t.Errorf("classify(%v) = %v, which wraps %v", err, got, s)
			}
		}
	}
}
