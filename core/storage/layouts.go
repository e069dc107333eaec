package storage

// Key lengths per layout (spec §5.2 and the bitmap_index kinds).
const (
	VersionKeyLen       = 64 // node_versions, edge_versions
	AdjacencyKeyLen     = 88 // adjacency_out, adjacency_in
	TemporalIndexKeyLen = 65 // valid_time_index, tx_time_index
	VectorKeyLen        = 72
	SchemaKeyLen        = 48
	SourceKeyLen        = 56
	SpanKeyLen          = 64
	TraceKeyLen         = 48
	JobKeyLen           = 58

	BitmapAllocKeyLen       = 41
	BitmapIDMapKeyLen       = 45
	BitmapRevMapKeyLen      = 57
	BitmapPostingKeyLen     = 57
	BitmapPropCounterKeyLen = 49
)

// bitmapKindOffset is where a bitmap_index key holds its kind byte, after
// the scope and the label hash.
const bitmapKindOffset = ScopeLen + 8

// keyLens is the key length of each family; bitmap_index keys take theirs
// from their kind byte (bitmapKindLens).
var keyLens = [...]int{
	NodeVersions:   VersionKeyLen,
	EdgeVersions:   VersionKeyLen,
	AdjacencyOut:   AdjacencyKeyLen,
	AdjacencyIn:    AdjacencyKeyLen,
	ValidTimeIndex: TemporalIndexKeyLen,
	TxTimeIndex:    TemporalIndexKeyLen,
	Vectors:        VectorKeyLen,
	Schema:         SchemaKeyLen,
	Sources:        SourceKeyLen,
	Spans:          SpanKeyLen,
	Traces:         TraceKeyLen,
	Jobs:           JobKeyLen,
}

// layoutLen returns the length that a key of the valid family cf must have,
// given the key's bytes b (a whole Key buffer, MaxKeyLen long), or -1 if a
// discriminator byte of the layout (index kind, job state, bitmap kind) is
// outside its enumeration. It is the decoders' rule, without decoding.
func layoutLen(cf ColumnFamily, b []byte) int {
	switch cf {
	case ValidTimeIndex, TxTimeIndex:
		if kind := IndexKind(b[TemporalIndexKeyLen-1]); kind != IndexNode && kind != IndexEdge {
			return -1
		}
	case Jobs:
		if !JobState(b[ScopeLen]).Valid() {
			return -1
		}
	case BitmapIndex:
		kind := BitmapKind(b[bitmapKindOffset])
		if !kind.Valid() {
			return -1
		}
		return bitmapKindLens[kind]
	}
	return keyLens[cf]
}

// hasSystemRows reports whether family cf holds rows of the system scope:
// system jobs, and the embedding-model registry in schema.
func hasSystemRows(cf ColumnFamily) bool { return cf == Jobs || cf == Schema }

// IndexKind distinguishes node and edge rows in the temporal indexes, so
// one index serves both version families.
type IndexKind uint8

// The index kinds.
const (
	IndexNode IndexKind = 0x00
	IndexEdge IndexKind = 0x01
)

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

var bitmapKindLens = [...]int{
	BitmapAlloc:       BitmapAllocKeyLen,
	BitmapIDMap:       BitmapIDMapKeyLen,
	BitmapRevMap:      BitmapRevMapKeyLen,
	BitmapPosting:     BitmapPostingKeyLen,
	BitmapPropCounter: BitmapPropCounterKeyLen,
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
