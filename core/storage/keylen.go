package storage

// The key length of each layout, written by its setters; the tests hold
// them to the layout table.
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

// layoutLen returns the length that a key of the valid family cf must have,
// given the key's bytes b (a whole Key buffer, MaxKeyLen long), or -1 if a
// discriminator byte of the layout (index kind, job state, bitmap kind) is
// outside its enumeration. It is the decoders' rule, without decoding.
func layoutLen(cf ColumnFamily, b []byte) int {
	switch cf {
	case ValidTimeIndex, TxTimeIndex:
		if !IndexKind(b[TemporalIndexKeyLen-1]).Valid() {
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
		return facts.bitmapKindLen[kind]
	}
	return facts.keyLen[cf]
}
