package api

import "time"

// Limits bound what one call may ask for. The zero value of a field means
// its default (DefaultLimits).
type Limits struct {
	// MaxRequestBytes bounds a request message.
	MaxRequestBytes int
	// CallTimeout bounds one call, deadline of the client's aside (the
	// shorter wins).
	CallTimeout time.Duration
	// MaxPageSize bounds a listing (history, neighbours, facts).
	MaxPageSize int
	// MaxK bounds a kNN query's k.
	MaxK int
	// MaxDepth bounds a traversal's depth.
	MaxDepth int
	// MaxBatch bounds the items of one batch request.
	MaxBatch int
	// MaxValueBytes bounds a node's or an edge's value.
	MaxValueBytes int
	// MaxLabels bounds the labels of a node or an edge.
	MaxLabels int
	// MaxReadBytes bounds the text one read of a document returns.
	MaxReadBytes int
	// MaxAttempts bounds the attempts a job may ask for.
	MaxAttempts int
}

// DefaultLimits are the limits of a server that sets none.
var DefaultLimits = Limits{
	MaxRequestBytes: 4 << 20,
	CallTimeout:     10 * time.Second,
	MaxPageSize:     1000,
	MaxK:            1000,
	MaxDepth:        6,
	MaxBatch:        1000,
	MaxValueBytes:   1 << 20,
	MaxLabels:       32,
	MaxReadBytes:    1 << 20,
	MaxAttempts:     100,
}

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits
	set := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	set(&l.MaxRequestBytes, d.MaxRequestBytes)
	set(&l.MaxPageSize, d.MaxPageSize)
	set(&l.MaxK, d.MaxK)
	set(&l.MaxDepth, d.MaxDepth)
	set(&l.MaxBatch, d.MaxBatch)
	set(&l.MaxValueBytes, d.MaxValueBytes)
	set(&l.MaxLabels, d.MaxLabels)
	set(&l.MaxReadBytes, d.MaxReadBytes)
	set(&l.MaxAttempts, d.MaxAttempts)
	if l.CallTimeout <= 0 {
		l.CallTimeout = d.CallTimeout
	}
	return l
}

// pageSize returns the page size a request asks for: the limit when it
// asks for none, resource_exhausted beyond the limit.
func (l Limits) pageSize(asked int32) (int, error) {
	return capped("page_size", asked, l.MaxPageSize)
}

// depth returns the traversal depth a request asks for: the limit when it
// asks for none, resource_exhausted beyond the limit.
func (l Limits) depth(asked int32) (int, error) {
	return capped("depth", asked, l.MaxDepth)
}

// k returns the number of neighbours a kNN request asks for: at least 1,
// resource_exhausted beyond the limit.
func (l Limits) k(asked int32) (int, error) {
	if asked == 0 {
		return 0, invalid("k: want at least 1")
	}
	return capped("k", asked, l.MaxK)
}

// capped returns asked, or limit when asked is 0: invalid_argument when
// negative, resource_exhausted over limit.
func capped(name string, asked int32, limit int) (int, error) {
	switch {
	case asked < 0:
		return 0, invalid("%s: %d is negative", name, asked)
	case asked == 0:
		return limit, nil
	case int(asked) > limit:
		return 0, exhausted("%s: %d is over the limit of %d", name, asked, limit)
	}
	return int(asked), nil
}
