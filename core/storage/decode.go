package storage

import (
	"fmt"

	"github.com/google/uuid"
)

// This file holds one decoder per column family. Decoders never panic: any
// input yields typed parts or an error wrapping ErrWrongLength,
// ErrHalfNilScope or ErrUnknownKind. They do not allocate on success.

// VersionParts are the components of a node_versions or edge_versions key.
// Under the system scope (edge_versions only) ID is a deployment secret's
// id (SystemScope.DeploymentSecretKey).
type VersionParts struct {
	Family     ColumnFamily
	Scope      KeyScope
	ID         uuid.UUID
	ValidStart Timestamp
	TxStart    Timestamp
}

// AdjacencyParts are the components of an adjacency_out or adjacency_in key.
// For adjacency_out the anchor is the source and the neighbor the
// destination; for adjacency_in the reverse.
type AdjacencyParts struct {
	Family     ColumnFamily
	Scope      KeyScope
	Anchor     uuid.UUID
	EdgeType   EdgeTypeHash
	ValidStart Timestamp
	TxStart    Timestamp
	Neighbor   uuid.UUID
}

// TemporalIndexParts are the components of a valid_time_index or
// tx_time_index key, whichever time leads in the bytes.
type TemporalIndexParts struct {
	Family     ColumnFamily
	Scope      KeyScope
	ValidStart Timestamp
	TxStart    Timestamp
	ID         uuid.UUID
	Kind       IndexKind
}

// VectorParts are the components of a vectors key.
type VectorParts struct {
	Family     ColumnFamily
	Scope      KeyScope
	Node       uuid.UUID
	Model      ModelID
	ValidStart Timestamp
	TxStart    Timestamp
}

// SchemaParts are the components of a schema key. Under the system scope
// the hash is an embedding model id (the model registry); otherwise a label
// hash.
type SchemaParts struct {
	Family  ColumnFamily
	Scope   KeyScope
	Hash    uint64
	TxStart Timestamp
}

// SourceParts are the components of a sources key. Redaction is set for the
// reserved slot (redaction records and blocklist rows), where Chunk is
// meaningless. Under the system scope the key is an erasure ledger entry:
// Source is the entry id, TxStart the time it was recorded, and Chunk is
// meaningless; under a tenant's, TxStart is.
type SourceParts struct {
	Family    ColumnFamily
	Scope     KeyScope
	Source    uuid.UUID
	Chunk     uint64
	TxStart   Timestamp
	Redaction bool
}

// SpanParts are the components of a spans key. ByFact is set for the fact
// shape, the reverse row of a span for the fact Fact; Fact is the nil UUID
// otherwise. Under the system scope the key is a counter
// (SystemScope.CounterKey): Source is its owner, Start its CounterName
// and End its id.
type SpanParts struct {
	Family ColumnFamily
	Scope  KeyScope
	Source uuid.UUID
	Start  uint64
	End    uint64
	Fact   uuid.UUID
	ByFact bool
}

// TraceParts are the components of a traces key. Under the system scope
// Query is the id of a tenant registry row (TenantRecordID).
type TraceParts struct {
	Family ColumnFamily
	Scope  KeyScope
	Query  uuid.UUID
}

// JobParts are the components of a jobs key.
type JobParts struct {
	Family   ColumnFamily
	Scope    KeyScope
	State    JobState
	Priority uint8
	Created  Timestamp
	ID       uuid.UUID
}

// BitmapParts are the components of a bitmap_index key. Which of Row, ID,
// Property and Bucket are meaningful depends on Kind.
type BitmapParts struct {
	Family   ColumnFamily
	Scope    KeyScope
	Label    LabelHash
	Kind     BitmapKind
	Row      uint32
	ID       uuid.UUID
	Property PropertyHash
	Bucket   BucketHash
}

// decoder reads a key left to right after its length has been checked.
type decoder struct {
	b   []byte
	off int
}

// newDecoder checks the length of b against want and reads the scope. A scope
// with exactly one nil component is neither a tenant nor the system scope.
func newDecoder(cf ColumnFamily, b []byte, want int) (decoder, KeyScope, error) {
	if len(b) != want {
		return decoder{}, KeyScope{}, fmt.Errorf("decode %s key: %w: %d bytes, want %d", cf, ErrWrongLength, len(b), want)
	}
	d := decoder{b: b}
	s := KeyScope{Tenant: d.uuid(), Organization: d.uuid()}
	if (s.Tenant == uuid.Nil) != (s.Organization == uuid.Nil) {
		return decoder{}, KeyScope{}, fmt.Errorf("decode %s key: %w: %s", cf, ErrHalfNilScope, s)
	}
	return d, s, nil
}

func (d *decoder) uuid() (id uuid.UUID) {
	copy(id[:], d.b[d.off:d.off+16])
	d.off += 16
	return id
}

func (d *decoder) u8() uint8 {
	v := d.b[d.off]
	d.off++
	return v
}

func (d *decoder) u32() uint32 {
	b := d.b[d.off : d.off+4]
	d.off += 4
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func (d *decoder) u64() uint64 {
	b := d.b[d.off : d.off+8]
	d.off += 8
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

func (d *decoder) inv() Timestamp { return fromOrdered(invert(d.u64())) }

func (d *decoder) asc() Timestamp { return fromOrdered(d.u64()) }

func decodeVersion(cf ColumnFamily, b []byte) (VersionParts, error) {
	d, s, err := newDecoder(cf, b, VersionKeyLen)
	if err != nil {
		return VersionParts{}, err
	}
	return VersionParts{Family: cf, Scope: s, ID: d.uuid(), ValidStart: d.inv(), TxStart: d.inv()}, nil
}

// DecodeNodeVersion decodes a node_versions key.
func DecodeNodeVersion(b []byte) (VersionParts, error) { return decodeVersion(NodeVersions, b) }

// DecodeEdgeVersion decodes an edge_versions key, tenant or deployment
// secret.
func DecodeEdgeVersion(b []byte) (VersionParts, error) { return decodeVersion(EdgeVersions, b) }

func decodeAdjacency(cf ColumnFamily, b []byte) (AdjacencyParts, error) {
	d, s, err := newDecoder(cf, b, AdjacencyKeyLen)
	if err != nil {
		return AdjacencyParts{}, err
	}
	return AdjacencyParts{
		Family: cf, Scope: s, Anchor: d.uuid(), EdgeType: EdgeTypeHash(d.u64()),
		ValidStart: d.inv(), TxStart: d.inv(), Neighbor: d.uuid(),
	}, nil
}

// DecodeAdjacencyOut decodes an adjacency_out key.
func DecodeAdjacencyOut(b []byte) (AdjacencyParts, error) { return decodeAdjacency(AdjacencyOut, b) }

// DecodeAdjacencyIn decodes an adjacency_in key.
func DecodeAdjacencyIn(b []byte) (AdjacencyParts, error) { return decodeAdjacency(AdjacencyIn, b) }

func decodeTemporalIndex(cf ColumnFamily, b []byte) (TemporalIndexParts, error) {
	d, s, err := newDecoder(cf, b, TemporalIndexKeyLen)
	if err != nil {
		return TemporalIndexParts{}, err
	}
	p := TemporalIndexParts{Family: cf, Scope: s}
	if cf == ValidTimeIndex {
		p.ValidStart, p.TxStart = d.inv(), d.inv()
	} else {
		p.TxStart, p.ValidStart = d.inv(), d.inv()
	}
	p.ID = d.uuid()
	p.Kind = IndexKind(d.u8())
	if !p.Kind.Valid() {
		return TemporalIndexParts{}, fmt.Errorf("decode %s key: %w: index kind 0x%02x", cf, ErrUnknownKind, uint8(p.Kind))
	}
	return p, nil
}

// DecodeValidTimeIndex decodes a valid_time_index key.
func DecodeValidTimeIndex(b []byte) (TemporalIndexParts, error) {
	return decodeTemporalIndex(ValidTimeIndex, b)
}

// DecodeTxTimeIndex decodes a tx_time_index key.
func DecodeTxTimeIndex(b []byte) (TemporalIndexParts, error) {
	return decodeTemporalIndex(TxTimeIndex, b)
}

// DecodeVector decodes a vectors key.
func DecodeVector(b []byte) (VectorParts, error) {
	d, s, err := newDecoder(Vectors, b, VectorKeyLen)
	if err != nil {
		return VectorParts{}, err
	}
	return VectorParts{
		Family: Vectors, Scope: s, Node: d.uuid(), Model: ModelID(d.u64()),
		ValidStart: d.inv(), TxStart: d.inv(),
	}, nil
}

// DecodeSchema decodes a schema key, tenant or model registry.
func DecodeSchema(b []byte) (SchemaParts, error) {
	d, s, err := newDecoder(Schema, b, SchemaKeyLen)
	if err != nil {
		return SchemaParts{}, err
	}
	return SchemaParts{Family: Schema, Scope: s, Hash: d.u64(), TxStart: d.inv()}, nil
}

// DecodeSource decodes a sources key, including the reserved redaction slot.
func DecodeSource(b []byte) (SourceParts, error) {
	d, s, err := newDecoder(Sources, b, SourceKeyLen)
	if err != nil {
		return SourceParts{}, err
	}
	p := SourceParts{Family: Sources, Scope: s, Source: d.uuid()}
	switch slot := invert(d.u64()); {
	case slot == RedactionChunkIndex && s.IsSystem():
		return SourceParts{}, fmt.Errorf("decode %s key: %w: the reserved slot under the system scope (an erasure ledger entry at MaxTimestamp)", Sources, ErrUnknownKind)
	case slot == RedactionChunkIndex:
		p.Redaction = true
	case s.IsSystem():
		p.TxStart = fromOrdered(slot)
	default:
		p.Chunk = slot
	}
	return p, nil
}

// DecodeSpan decodes a spans key of either shape: a span, or the fact
// shape, which its marker announces.
func DecodeSpan(b []byte) (SpanParts, error) {
	want := SpanKeyLen
	if len(b) >= factSpanMarkerOffset+8 {
		marker := decoder{b: b, off: factSpanMarkerOffset}
		if marker.u64() == factSpanMarker {
			want = FactSpanKeyLen
		}
	}
	d, s, err := newDecoder(Spans, b, want)
	if err != nil {
		return SpanParts{}, err
	}
	p := SpanParts{Family: Spans, Scope: s}
	if want == FactSpanKeyLen {
		p.Fact, p.ByFact = d.uuid(), true
		d.off += 8
	}
	p.Source, p.Start, p.End = d.uuid(), d.u64(), d.u64()
	return p, nil
}

// DecodeTrace decodes a traces key, tenant or tenant registry.
func DecodeTrace(b []byte) (TraceParts, error) {
	d, s, err := newDecoder(Traces, b, TraceKeyLen)
	if err != nil {
		return TraceParts{}, err
	}
	return TraceParts{Family: Traces, Scope: s, Query: d.uuid()}, nil
}

// DecodeJob decodes a jobs key, tenant or system.
func DecodeJob(b []byte) (JobParts, error) {
	d, s, err := newDecoder(Jobs, b, JobKeyLen)
	if err != nil {
		return JobParts{}, err
	}
	p := JobParts{Family: Jobs, Scope: s, State: JobState(d.u8()), Priority: d.u8(), Created: d.asc(), ID: d.uuid()}
	if !p.State.Valid() {
		return JobParts{}, fmt.Errorf("decode %s key: %w: job state 0x%02x", Jobs, ErrUnknownKind, uint8(p.State))
	}
	return p, nil
}

// DecodeBitmap decodes a bitmap_index key of any of its five kinds. The kind
// byte decides the expected length.
func DecodeBitmap(b []byte) (BitmapParts, error) {
	if len(b) <= bitmapKindOffset {
		return BitmapParts{}, fmt.Errorf("decode %s key: %w: %d bytes, want at least %d", BitmapIndex, ErrWrongLength, len(b), bitmapKindOffset+1)
	}
	kind := BitmapKind(b[bitmapKindOffset])
	if !kind.Valid() {
		return BitmapParts{}, fmt.Errorf("decode %s key: %w: bitmap kind 0x%02x", BitmapIndex, ErrUnknownKind, uint8(kind))
	}
	d, s, err := newDecoder(BitmapIndex, b, facts.bitmapKindLen[kind])
	if err != nil {
		return BitmapParts{}, err
	}
	p := BitmapParts{Family: BitmapIndex, Scope: s, Label: LabelHash(d.u64()), Kind: BitmapKind(d.u8())}
	switch kind {
	case BitmapIDMap:
		p.Row = d.u32()
	case BitmapRevMap:
		p.ID = d.uuid()
	case BitmapPosting:
		p.Property, p.Bucket = PropertyHash(d.u64()), BucketHash(d.u64())
	case BitmapPropCounter:
		p.Property = PropertyHash(d.u64())
	}
	return p, nil
}
