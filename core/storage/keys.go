package storage

import (
	"encoding/binary"

	"github.com/google/uuid"
)

// This file holds the key constructors of the layout table (layout.go,
// docs/key-layout.md), two forms per constructor.
// The setter (Key.SetNodeVersion) writes a key into an existing Key; it is
// the form for loops that build many keys, and it runs at the speed of a
// hand-written encoding/binary function (BENCHMARKS.md). The function form
// (NodeVersionKey) returns a new Key, which costs zeroing and copying a
// 96-byte value. Both give an invalid Key for the zero TenantScope.
//
// The setters write fixed offsets, with no branch on the scope, so that
// each one inlines into its caller: a call would cost as much as the
// encoding. TestIntendedInlining keeps them within the inliner's budget.
// Every setter follows the same rules: call shrink with its length first
// (unless the key is MaxKeyLen long), write family and length (with
// systemBit only under SystemScope), and, when it refuses an argument, still
// write everything and then clear the family, so that Valid is false and the
// next setter into the same Key still sees the length it must clear.

// NodeVersionKey is [scope 32][logical id 16][inv valid start 8][inv tx start 8]:
// one version of a node, latest valid time first, then latest tx time first.
func NodeVersionKey(s TenantScope, id uuid.UUID, validStart, txStart Timestamp) (k Key) {
	k.SetNodeVersion(s, id, validStart, txStart)
	return k
}

// SetNodeVersion sets k to NodeVersionKey(s, id, validStart, txStart).
func (k *Key) SetNodeVersion(s TenantScope, id uuid.UUID, validStart, txStart Timestamp) {
	k.setVersion(NodeVersions, &s, &id, validStart, txStart)
}

// EdgeVersionKey has the node version layout in the edge_versions family.
func EdgeVersionKey(s TenantScope, id uuid.UUID, validStart, txStart Timestamp) (k Key) {
	k.SetEdgeVersion(s, id, validStart, txStart)
	return k
}

// SetEdgeVersion sets k to EdgeVersionKey(s, id, validStart, txStart).
func (k *Key) SetEdgeVersion(s TenantScope, id uuid.UUID, validStart, txStart Timestamp) {
	k.setVersion(EdgeVersions, &s, &id, validStart, txStart)
}

func (k *Key) setVersion(cf ColumnFamily, s *TenantScope, id *uuid.UUID, validStart, txStart Timestamp) {
	k.shrink(VersionKeyLen)
	k.family, k.n = cf, VersionKeyLen
	copy(k.b[0:], s.p[:])
	copy(k.b[32:], id[:])
	binary.BigEndian.PutUint64(k.b[48:], inverted(validStart))
	binary.BigEndian.PutUint64(k.b[56:], inverted(txStart))
}

// AdjacencyOutKey is [scope 32][from 16][edge type 8][inv valid start 8][inv tx start 8][to 16].
func AdjacencyOutKey(s TenantScope, from uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, to uuid.UUID) (k Key) {
	k.SetAdjacencyOut(s, from, edgeType, validStart, txStart, to)
	return k
}

// SetAdjacencyOut sets k to AdjacencyOutKey(s, from, edgeType, validStart, txStart, to).
func (k *Key) SetAdjacencyOut(s TenantScope, from uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, to uuid.UUID) {
	k.setAdjacency(AdjacencyOut, &s, &from, edgeType, validStart, txStart, &to)
}

// AdjacencyInKey is [scope 32][to 16][edge type 8][inv valid start 8][inv tx start 8][from 16].
func AdjacencyInKey(s TenantScope, to uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, from uuid.UUID) (k Key) {
	k.SetAdjacencyIn(s, to, edgeType, validStart, txStart, from)
	return k
}

// SetAdjacencyIn sets k to AdjacencyInKey(s, to, edgeType, validStart, txStart, from).
func (k *Key) SetAdjacencyIn(s TenantScope, to uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, from uuid.UUID) {
	k.setAdjacency(AdjacencyIn, &s, &to, edgeType, validStart, txStart, &from)
}

// The adjacency keys are the longest, so setAdjacency has no tail to clear;
// this fails to compile if a longer layout is ever added.
var _ [AdjacencyKeyLen - MaxKeyLen]struct{}

func (k *Key) setAdjacency(cf ColumnFamily, s *TenantScope, anchor *uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, neighbor *uuid.UUID) {
	k.family, k.n = cf, AdjacencyKeyLen
	copy(k.b[0:], s.p[:])
	copy(k.b[32:], anchor[:])
	binary.BigEndian.PutUint64(k.b[48:], uint64(edgeType))
	binary.BigEndian.PutUint64(k.b[56:], inverted(validStart))
	binary.BigEndian.PutUint64(k.b[64:], inverted(txStart))
	copy(k.b[72:], neighbor[:])
}

// ValidTimeIndexKey is [scope 32][inv valid start 8][inv tx start 8][logical id 16][kind 1].
// Its stored value is the primary key of the version it indexes.
func ValidTimeIndexKey(s TenantScope, validStart, txStart Timestamp, id uuid.UUID, kind IndexKind) (k Key) {
	k.SetValidTimeIndex(s, validStart, txStart, id, kind)
	return k
}

// SetValidTimeIndex sets k to ValidTimeIndexKey(s, validStart, txStart, id, kind).
func (k *Key) SetValidTimeIndex(s TenantScope, validStart, txStart Timestamp, id uuid.UUID, kind IndexKind) {
	k.setTemporalIndex(ValidTimeIndex, &s, validStart, txStart, &id, kind)
}

// TxTimeIndexKey is [scope 32][inv tx start 8][inv valid start 8][logical id 16][kind 1].
// Its stored value is the primary key of the version it indexes.
func TxTimeIndexKey(s TenantScope, txStart, validStart Timestamp, id uuid.UUID, kind IndexKind) (k Key) {
	k.SetTxTimeIndex(s, txStart, validStart, id, kind)
	return k
}

// SetTxTimeIndex sets k to TxTimeIndexKey(s, txStart, validStart, id, kind).
func (k *Key) SetTxTimeIndex(s TenantScope, txStart, validStart Timestamp, id uuid.UUID, kind IndexKind) {
	k.setTemporalIndex(TxTimeIndex, &s, txStart, validStart, &id, kind)
}

func (k *Key) setTemporalIndex(cf ColumnFamily, s *TenantScope, first, second Timestamp, id *uuid.UUID, kind IndexKind) {
	k.shrink(TemporalIndexKeyLen)
	k.family, k.n = cf, TemporalIndexKeyLen
	copy(k.b[0:], s.p[:])
	binary.BigEndian.PutUint64(k.b[32:], inverted(first))
	binary.BigEndian.PutUint64(k.b[40:], inverted(second))
	copy(k.b[48:], id[:])
	k.b[64] = uint8(kind)
}

// VectorKey is [scope 32][node id 16][model id 8][inv valid start 8][inv tx start 8].
func VectorKey(s TenantScope, node uuid.UUID, model ModelID, validStart, txStart Timestamp) (k Key) {
	k.SetVector(s, node, model, validStart, txStart)
	return k
}

// SetVector sets k to VectorKey(s, node, model, validStart, txStart).
func (k *Key) SetVector(s TenantScope, node uuid.UUID, model ModelID, validStart, txStart Timestamp) {
	k.shrink(VectorKeyLen)
	k.family, k.n = Vectors, VectorKeyLen
	copy(k.b[0:], s.p[:])
	copy(k.b[32:], node[:])
	binary.BigEndian.PutUint64(k.b[48:], uint64(model))
	binary.BigEndian.PutUint64(k.b[56:], inverted(validStart))
	binary.BigEndian.PutUint64(k.b[64:], inverted(txStart))
}

// SchemaKey is [scope 32][label hash 8][inv tx start 8].
func SchemaKey(s TenantScope, label LabelHash, txStart Timestamp) (k Key) {
	k.SetSchema(s, label, txStart)
	return k
}

// SetSchema sets k to SchemaKey(s, label, txStart).
func (k *Key) SetSchema(s TenantScope, label LabelHash, txStart Timestamp) {
	k.shrink(SchemaKeyLen)
	k.family, k.n = Schema, SchemaKeyLen
	copy(k.b[0:], s.p[:])
	k.setSchemaTail(uint64(label), txStart)
}

// setSchemaTail writes the schema shape after its scope: [hash 8][inv tx 8].
func (k *Key) setSchemaTail(hash uint64, txStart Timestamp) {
	binary.BigEndian.PutUint64(k.b[32:], hash)
	binary.BigEndian.PutUint64(k.b[40:], inverted(txStart))
}

// EdgeTypeKey is the registration row of edge type hash h written at tx:
// the schema shape [scope 32][EdgeTypeLabel(h) 8][inv tx 8], a row of the
// fail-loud edge-type registry (docs/design.md, Reserved rows).
func EdgeTypeKey(s TenantScope, h EdgeTypeHash, txStart Timestamp) (k Key) {
	k.SetEdgeType(s, h, txStart)
	return k
}

// SetEdgeType sets k to EdgeTypeKey(s, h, txStart).
func (k *Key) SetEdgeType(s TenantScope, h EdgeTypeHash, txStart Timestamp) {
	k.SetSchema(s, EdgeTypeLabel(h), txStart)
}

// SourceChunkKey is [scope 32][blob id 16][inv chunk index 8]: one chunk of
// a blob's canonical text. RedactionChunkIndex is the reserved redaction
// slot, so it yields an invalid Key.
func SourceChunkKey(s TenantScope, blob uuid.UUID, chunk uint64) (k Key) {
	k.SetSourceChunk(s, blob, chunk)
	return k
}

// SetSourceChunk sets k to SourceChunkKey(s, blob, chunk).
func (k *Key) SetSourceChunk(s TenantScope, blob uuid.UUID, chunk uint64) {
	k.setSource(&s, &blob, invert(chunk))
	if chunk == RedactionChunkIndex {
		k.family = 0
	}
}

// setSource writes the 56-byte sources shape with an already inverted slot:
// a chunk index, or the reserved RedactionChunkIndex.
func (k *Key) setSource(s *TenantScope, id *uuid.UUID, invertedSlot uint64) {
	k.shrink(SourceKeyLen)
	k.family, k.n = Sources, SourceKeyLen
	copy(k.b[0:], s.p[:])
	copy(k.b[32:], id[:])
	binary.BigEndian.PutUint64(k.b[48:], invertedSlot)
}

// SpanKey is [scope 32][source id 16][span start 8][span end 8]. Offsets are
// not inverted: spans iterate in document order. A start of math.MaxUint64
// is the fact shape's marker, so it yields an invalid Key.
func SpanKey(s TenantScope, source uuid.UUID, start, end uint64) (k Key) {
	k.SetSpan(s, source, start, end)
	return k
}

// SetSpan sets k to SpanKey(s, source, start, end).
func (k *Key) SetSpan(s TenantScope, source uuid.UUID, start, end uint64) {
	k.setSpan(&s, &source, start, end)
}

// setSpan writes the spans shape, which SystemScope.CounterKey shares.
func (k *Key) setSpan(s *TenantScope, source *uuid.UUID, start, end uint64) {
	k.shrink(SpanKeyLen)
	k.family, k.n = Spans, SpanKeyLen
	copy(k.b[0:], s.p[:])
	copy(k.b[32:], source[:])
	binary.BigEndian.PutUint64(k.b[48:], start)
	binary.BigEndian.PutUint64(k.b[56:], end)
	if start == factSpanMarker {
		k.family = 0
	}
}

// FactSpanKey is [scope 32][fact id 16][marker 8][source id 16][span start 8][span end 8]:
// the reverse row of SpanKey(s, source, start, end) for one fact it produced,
// so that the passages of a fact are found without a scan over sources.
func FactSpanKey(s TenantScope, fact, source uuid.UUID, start, end uint64) (k Key) {
	k.SetFactSpan(s, fact, source, start, end)
	return k
}

// SetFactSpan sets k to FactSpanKey(s, fact, source, start, end). The fact
// shape is MaxKeyLen long, so it has no tail to clear either.
var _ [FactSpanKeyLen - MaxKeyLen]struct{}

// SetFactSpan sets k to FactSpanKey(s, fact, source, start, end).
func (k *Key) SetFactSpan(s TenantScope, fact, source uuid.UUID, start, end uint64) {
	k.family, k.n = Spans, FactSpanKeyLen
	copy(k.b[0:], s.p[:])
	copy(k.b[32:], fact[:])
	binary.BigEndian.PutUint64(k.b[48:], factSpanMarker)
	copy(k.b[56:], source[:])
	binary.BigEndian.PutUint64(k.b[72:], start)
	binary.BigEndian.PutUint64(k.b[80:], end)
}

// TraceKey is [scope 32][query id 16].
func TraceKey(s TenantScope, query uuid.UUID) (k Key) {
	k.SetTrace(s, query)
	return k
}

// SetTrace sets k to TraceKey(s, query).
func (k *Key) SetTrace(s TenantScope, query uuid.UUID) {
	k.shrink(TraceKeyLen)
	k.family, k.n = Traces, TraceKeyLen
	copy(k.b[0:], s.p[:])
	copy(k.b[32:], query[:])
}

// JobKey is [scope 32][state 1][priority 1][created at 8][job id 16]. The
// creation time is not inverted: claims are FIFO within (state, priority).
// An unknown state yields an invalid Key.
func JobKey(s TenantScope, state JobState, priority uint8, created Timestamp, id uuid.UUID) (k Key) {
	k.SetJob(s, state, priority, created, id)
	return k
}

// SetJob sets k to JobKey(s, state, priority, created, id).
func (k *Key) SetJob(s TenantScope, state JobState, priority uint8, created Timestamp, id uuid.UUID) {
	k.shrink(JobKeyLen)
	copy(k.b[0:], s.p[:])
	k.setJobTail(JobKeyLen, state, priority, created, &id)
}

// setJobTail writes the jobs shape after its scope, with n the length and
// maybe the system bit.
func (k *Key) setJobTail(n uint8, state JobState, priority uint8, created Timestamp, id *uuid.UUID) {
	k.family, k.n = Jobs, n
	if !state.Valid() {
		k.family = 0
	}
	k.b[32], k.b[33] = uint8(state), priority
	binary.BigEndian.PutUint64(k.b[34:], ordered(created))
	copy(k.b[42:], id[:])
}
