package graph

import (
	"errors"

	"telha.dev/temporal"
)

// Sentinel errors; functions wrap them with context. Test with errors.Is.
var (
	// ErrEdgeTypeCollision reports an edge type name whose hash is already
	// registered for another name: the registry fails loud, never merges.
	ErrEdgeTypeCollision = temporal.ErrEdgeTypeCollision

	// ErrUnknownEdgeType reports a type hash with no registered name.
	ErrUnknownEdgeType = temporal.ErrUnknownEdgeType

	// ErrBadLimit reports a traversal limit out of range.
	ErrBadLimit = errors.New("bad traversal limit")

	// ErrBadDirection reports a direction other than Out, In or Both.
	ErrBadDirection = errors.New("bad direction")

	// ErrNoPath reports that no path within the limits joins two nodes.
	ErrNoPath = errors.New("no path")
)

func isUnknown(err error) bool { return errors.Is(err, ErrUnknownEdgeType) }
