package temporal

import "errors"

// Sentinel errors; functions wrap them with context. Test with errors.Is.
var (
	// ErrInvalidInterval reports a valid-time interval whose start is not
	// before its end.
	ErrInvalidInterval = errors.New("invalid valid-time interval")

	// ErrInvalidFact reports a fact the store cannot hold: a nil id, a nil
	// endpoint, an empty edge type, an empty label or property name.
	ErrInvalidFact = errors.New("invalid fact")

	// ErrNotFound reports that no version matches a read: the entity is
	// unknown, or not valid at that time, or deleted.
	ErrNotFound = errors.New("not found")

	// ErrUnknownNode reports a write that refers to a node with no version
	// at all, such as deleting it.
	ErrUnknownNode = errors.New("unknown node")

	// ErrUnknownEdge reports a delete of an edge with no version at all.
	ErrUnknownEdge = errors.New("unknown edge")

	// ErrEndpointsChanged reports an edge assertion whose from, to or type
	// differs from the edge's earlier versions: endpoints are immutable,
	// because the adjacency rows are keyed by them.
	ErrEndpointsChanged = errors.New("edge endpoints or type changed")

	// ErrCorrupt reports stored bytes that do not decode: a bad format
	// version, a truncated field, a non-canonical encoding.
	ErrCorrupt = errors.New("corrupt value")

	// ErrBadLimit reports a page limit below one.
	ErrBadLimit = errors.New("page limit must be positive")

	// ErrBadCursor reports a page cursor that another scan produced: another
	// kind of scan, another tenant, or the same scan with other parameters.
	ErrBadCursor = errors.New("cursor of another scan")

	// ErrClockExhausted reports a transaction clock with no time left: the
	// next time would reach Forever, which marks an open interval and is
	// never a transaction time.
	ErrClockExhausted = errors.New("transaction clock exhausted")

	// ErrEdgeTypeCollision reports an edge type name whose hash is already
	// registered for another name: the registry fails loud rather than
	// merge two types into one adjacency range.
	ErrEdgeTypeCollision = errors.New("edge type hash collision")

	// ErrUnknownEdgeType reports a type hash with no registered name.
	ErrUnknownEdgeType = errors.New("unknown edge type")
)
