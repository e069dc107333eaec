package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"connectrpc.com/connect"
	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/graph"
	"telha.dev/server/auth"
	"telha.dev/temporal"
	"telha.dev/vector"
	"telha.dev/vector/bitmap"
)

// errNoPrincipal is the answer of a handler reached without a principal:
// the server was wired without its interceptor.
var errNoPrincipal = connect.NewError(connect.CodeUnauthenticated, auth.ErrUnauthenticated)

// scope returns the principal's scope, the only scope a handler uses.
func scope(ctx context.Context) (storage.TenantScope, error) {
	p, ok := auth.From(ctx)
	if !ok {
		return p.Scope(), errNoPrincipal // the zero scope: unusable
	}
	return p.Scope(), nil
}

// invalid returns an invalid_argument error.
func invalid(format string, args ...any) error {
	return connect.NewError(connect.CodeInvalidArgument, fmt.Errorf(format, args...))
}

// exhausted returns a resource_exhausted error.
func exhausted(format string, args ...any) error {
	return connect.NewError(connect.CodeResourceExhausted, fmt.Errorf(format, args...))
}

// parseID parses a request's UUID field name.
func parseID(name, s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil || len(s) != 36 {
		return uuid.Nil, invalid("%s: want a UUID in its 36-character form", name)
	}
	if id == uuid.Nil {
		return uuid.Nil, invalid("%s: the nil UUID names nothing", name)
	}
	return id, nil
}

// classified maps a store error to the Connect error the caller gets. Bad
// input keeps its message; anything else is logged and answered as
// internal without detail.
func classified(log *slog.Logger, what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.As(err, new(*connect.Error)):
		return err
	case errors.Is(err, temporal.ErrNotFound), errors.Is(err, temporal.ErrUnknownNode), errors.Is(err, temporal.ErrUnknownEdge),
		errors.Is(err, graph.ErrNoPath), errors.Is(err, vector.ErrUnknownModel):
		return connect.NewError(connect.CodeNotFound, errors.New("not found"))
	case errors.Is(err, temporal.ErrInvalidFact), errors.Is(err, temporal.ErrInvalidInterval),
		errors.Is(err, temporal.ErrEndpointsChanged), errors.Is(err, temporal.ErrBadLimit),
		errors.Is(err, temporal.ErrUnknownEdgeType), errors.Is(err, storage.ErrValueTooLarge),
		errors.Is(err, graph.ErrBadLimit), errors.Is(err, graph.ErrBadDirection),
		errors.Is(err, vector.ErrDimensionMismatch), errors.Is(err, vector.ErrInvalidVector),
		errors.Is(err, vector.ErrInvalidQuery), errors.Is(err, bitmap.ErrInvalidQuery), errors.Is(err, bitmap.ErrOverflow):
		return connect.NewError(connect.CodeInvalidArgument, err)
	case errors.Is(err, context.DeadlineExceeded):
		return connect.NewError(connect.CodeDeadlineExceeded, errors.New("deadline exceeded"))
	case errors.Is(err, context.Canceled):
		return connect.NewError(connect.CodeCanceled, errors.New("canceled"))
	}
	log.Error("call failed", slog.String("call", what), slog.String("error", err.Error()))
	return connect.NewError(connect.CodeInternal, errors.New("internal error"))
}
