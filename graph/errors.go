package graph

import "errors"

// Sentinel errors; functions wrap them with context. Test with errors.Is.
var (
	// ErrEdgeTypeCollision reports an edge type name whose hash is already
	// registered for another name (spec OQ-1: fail loud, never merge).
	ErrEdgeTypeCollision = errors.New("edge type hash collision")

	// ErrUnknownEdgeType reports a type hash with no registered name.
	ErrUnknownEdgeType = errors.New("unknown edge type")

	// ErrCorrupt reports a registry row that does not decode.
	ErrCorrupt = errors.New("corrupt edge type registration")

	// ErrBadLimit reports a traversal limit out of range.
	ErrBadLimit = errors.New("bad traversal limit")

	// ErrBadDirection reports a direction other than Out, In or Both.
	ErrBadDirection = errors.New("bad direction")

	// ErrNoPath reports that no path within the limits joins two nodes.
	ErrNoPath = errors.New("no path")
)

func isUnknown(err error) bool { return errors.Is(err, ErrUnknownEdgeType) }
