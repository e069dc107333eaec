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
	"telha.dev/jobs"
	"telha.dev/server/auth"
	"telha.dev/sources"
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

// codes are the Connect codes of the store's errors that are the
// caller's doing, in the order classified tries them. An invalid_argument
// answer keeps the store's message, which tells what in the caller's
// input is wrong; the others say what the sentinel says and no more (not
// even which id).
var codes = []struct {
	code connect.Code
	errs []error
}{
	{connect.CodeNotFound, []error{temporal.ErrNotFound, temporal.ErrUnknownNode, temporal.ErrUnknownEdge,
		graph.ErrNoPath, vector.ErrUnknownModel, sources.ErrNoBlob, sources.ErrDeleted, sources.ErrNoTrace,
		jobs.ErrNoJob, jobs.ErrUnknownJob}},
	{connect.CodeInvalidArgument, []error{temporal.ErrInvalidFact, temporal.ErrInvalidInterval,
		temporal.ErrEndpointsChanged, temporal.ErrBadLimit, temporal.ErrUnknownEdgeType, storage.ErrValueTooLarge,
		graph.ErrBadLimit, graph.ErrBadDirection, vector.ErrDimensionMismatch, vector.ErrInvalidVector,
		vector.ErrInvalidQuery, bitmap.ErrInvalidQuery, bitmap.ErrOverflow, sources.ErrNotCanonical,
		sources.ErrBadSpan, sources.ErrBadFact, sources.ErrBadTrace, jobs.ErrBadOwner, jobs.ErrBadLease}},
	{connect.CodeFailedPrecondition, []error{sources.ErrBlocklisted, sources.ErrRedacted, jobs.ErrLeaseLost,
		jobs.ErrWrongOwner, storage.ErrTenantNotWritable}},
	{connect.CodeAlreadyExists, []error{sources.ErrTraceExists}},
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
	case errors.Is(err, context.DeadlineExceeded):
		return connect.NewError(connect.CodeDeadlineExceeded, errors.New("deadline exceeded"))
	case errors.Is(err, context.Canceled):
		return connect.NewError(connect.CodeCanceled, errors.New("canceled"))
	}
	for _, c := range codes {
		for _, sentinel := range c.errs {
			if !errors.Is(err, sentinel) {
				continue
			}
			if c.code == connect.CodeInvalidArgument {
				return connect.NewError(c.code, err)
			}
			return connect.NewError(c.code, errors.New(sentinel.Error()))
		}
	}
	log.Error("call failed", slog.String("call", what), slog.String("error", err.Error()))
	return connect.NewError(connect.CodeInternal, errors.New("internal error"))
}
