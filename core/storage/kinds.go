package storage

// IndexKind distinguishes node and edge rows in the temporal indexes, so
// one index serves both version families.
type IndexKind uint8

// The index kinds.
const (
	IndexNode IndexKind = 0x00
	IndexEdge IndexKind = 0x01
)

// Valid reports whether k is a known kind.
func (k IndexKind) Valid() bool { return k <= IndexEdge }

// String returns "node" or "edge".
func (k IndexKind) String() string {
	switch k {
	case IndexNode:
		return "node"
	case IndexEdge:
		return "edge"
	}
	return "unknown"
}

// Family returns the version family an index row of this kind points into.
func (k IndexKind) Family() ColumnFamily {
	if k == IndexEdge {
		return EdgeVersions
	}
	return NodeVersions
}

// JobState is the state byte of a jobs key. Jobs of one state sort by
// priority byte, then by creation time ascending (FIFO).
type JobState uint8

// The job states.
const (
	JobQueued    JobState = 0x01
	JobLeased    JobState = 0x02
	JobCompleted JobState = 0x03
	JobFailed    JobState = 0x04 // waiting for a retry after backoff
	JobDead      JobState = 0x05 // retries exhausted
)

var jobStateNames = [...]string{
	JobQueued:    "queued",
	JobLeased:    "leased",
	JobCompleted: "completed",
	JobFailed:    "failed",
	JobDead:      "dead",
}

// Valid reports whether s is a known state.
func (s JobState) Valid() bool {
	// One unsigned comparison, since s-JobQueued wraps for s < JobQueued:
	// cheap enough for the job key setters to stay inlinable.
	return s-JobQueued <= JobDead-JobQueued
}

// String returns the state's name.
func (s JobState) String() string {
	if !s.Valid() {
		return "unknown"
	}
	return jobStateNames[s]
}

// BitmapKind is the kind byte that discriminates the five key shapes of the
// bitmap_index family.
type BitmapKind uint8

// The bitmap_index kinds.
const (
	BitmapAlloc       BitmapKind = 0x00 // row-id watermark of one (tenant, label)
	BitmapIDMap       BitmapKind = 0x01 // row id -> logical id
	BitmapRevMap      BitmapKind = 0x02 // logical id -> row id
	BitmapPosting     BitmapKind = 0x03 // roaring posting list of one (property, bucket)
	BitmapPropCounter BitmapKind = 0x04 // distinct-value counter of one property
)

var bitmapKindNames = [...]string{
	BitmapAlloc:       "alloc",
	BitmapIDMap:       "id_map",
	BitmapRevMap:      "rev_map",
	BitmapPosting:     "posting",
	BitmapPropCounter: "prop_counter",
}

// Valid reports whether k is a known kind.
func (k BitmapKind) Valid() bool { return k <= BitmapPropCounter }

// String returns the kind's name.
func (k BitmapKind) String() string {
	if !k.Valid() {
		return "unknown"
	}
	return bitmapKindNames[k]
}
