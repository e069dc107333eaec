package storage

import "github.com/google/uuid"

// This file holds one constructor per key layout of spec §5.2. Each exported
// constructor takes a TenantScope first and returns the zero (invalid) Key
// when the scope is the zero value. The unexported layout functions take the
// prefix so that SystemScope can share the same shapes.

func versionKey(k *Key, cf ColumnFamily, s TenantScope, id uuid.UUID, validStart, txStart Timestamp) {
	e := startKey(k, cf)
	e.tenant(s)
	e.id(id)
	e.inv(validStart)
	e.inv(txStart)
	e.done()
}

// NodeVersionKey is [scope 32][logical id 16][inv valid start 8][inv tx start 8]:
// one version of a node, latest valid time first, then latest tx time first.
func NodeVersionKey(s TenantScope, id uuid.UUID, validStart, txStart Timestamp) (k Key) {
	if !s.IsZero() {
		versionKey(&k, NodeVersions, s, id, validStart, txStart)
	}
	return k
}

// EdgeVersionKey has the node version layout in the edge_versions family.
func EdgeVersionKey(s TenantScope, id uuid.UUID, validStart, txStart Timestamp) (k Key) {
	if !s.IsZero() {
		versionKey(&k, EdgeVersions, s, id, validStart, txStart)
	}
	return k
}

func adjacencyKey(k *Key, cf ColumnFamily, s TenantScope, anchor uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, neighbor uuid.UUID) {
	e := startKey(k, cf)
	e.tenant(s)
	e.id(anchor)
	e.u64(uint64(edgeType))
	e.inv(validStart)
	e.inv(txStart)
	e.id(neighbor)
	e.done()
}

// AdjacencyOutKey is [scope 32][from 16][edge type 8][inv valid start 8][inv tx start 8][to 16].
func AdjacencyOutKey(s TenantScope, from uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, to uuid.UUID) (k Key) {
	if !s.IsZero() {
		adjacencyKey(&k, AdjacencyOut, s, from, edgeType, validStart, txStart, to)
	}
	return k
}

// AdjacencyInKey is [scope 32][to 16][edge type 8][inv valid start 8][inv tx start 8][from 16].
func AdjacencyInKey(s TenantScope, to uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, from uuid.UUID) (k Key) {
	if !s.IsZero() {
		adjacencyKey(&k, AdjacencyIn, s, to, edgeType, validStart, txStart, from)
	}
	return k
}

func temporalIndexKey(k *Key, cf ColumnFamily, s TenantScope, first, second Timestamp, id uuid.UUID, kind IndexKind) {
	e := startKey(k, cf)
	e.tenant(s)
	e.inv(first)
	e.inv(second)
	e.id(id)
	e.u8(uint8(kind))
	e.done()
}

// ValidTimeIndexKey is [scope 32][inv valid start 8][inv tx start 8][logical id 16][kind 1].
// Its stored value is the primary key of the version it indexes.
func ValidTimeIndexKey(s TenantScope, validStart, txStart Timestamp, id uuid.UUID, kind IndexKind) (k Key) {
	if !s.IsZero() {
		temporalIndexKey(&k, ValidTimeIndex, s, validStart, txStart, id, kind)
	}
	return k
}

// TxTimeIndexKey is [scope 32][inv tx start 8][inv valid start 8][logical id 16][kind 1].
// Its stored value is the primary key of the version it indexes.
func TxTimeIndexKey(s TenantScope, txStart, validStart Timestamp, id uuid.UUID, kind IndexKind) (k Key) {
	if !s.IsZero() {
		temporalIndexKey(&k, TxTimeIndex, s, txStart, validStart, id, kind)
	}
	return k
}

// VectorKey is [scope 32][node id 16][model id 8][inv valid start 8][inv tx start 8].
func VectorKey(s TenantScope, node uuid.UUID, model ModelID, validStart, txStart Timestamp) (k Key) {
	if s.IsZero() {
		return k
	}
	e := startKey(&k, Vectors)
	e.tenant(s)
	e.id(node)
	e.u64(uint64(model))
	e.inv(validStart)
	e.inv(txStart)
	e.done()
	return k
}

// schemaTail writes the schema shape after its scope.
func schemaTail(e *encoder, hash uint64, txStart Timestamp) {
	e.u64(hash)
	e.inv(txStart)
	e.done()
}

// SchemaKey is [scope 32][label hash 8][inv tx start 8].
func SchemaKey(s TenantScope, label LabelHash, txStart Timestamp) (k Key) {
	if !s.IsZero() {
		e := startKey(&k, Schema)
		e.tenant(s)
		schemaTail(&e, uint64(label), txStart)
	}
	return k
}

// EdgeTypeKey is the registration row of edge type hash h written at tx:
// the schema shape [scope 32][EdgeTypeLabel(h) 8][inv tx 8] (spec OQ-1's
// fail-loud registry).
func EdgeTypeKey(s TenantScope, h EdgeTypeHash, txStart Timestamp) Key {
	return SchemaKey(s, EdgeTypeLabel(h), txStart)
}

// sourceKey writes the 56-byte sources shape with a raw, not yet inverted,
// slot value; the slot is a tx time or the reserved RedactionChunkIndex.
func sourceKey(s TenantScope, id uuid.UUID, slot uint64) (k Key) {
	if !s.IsZero() {
		e := startKey(&k, Sources)
		e.tenant(s)
		e.id(id)
		e.u64(invert(slot))
		e.done()
	}
	return k
}

// SourceKey is [scope 32][source id 16][inv tx start 8]. MaxTimestamp is the
// reserved redaction slot, so it yields the invalid Key.
func SourceKey(s TenantScope, source uuid.UUID, txStart Timestamp) Key {
	if txStart == MaxTimestamp {
		return Key{}
	}
	return sourceKey(s, source, ordered(txStart))
}

// SpanKey is [scope 32][source id 16][span start 8][span end 8]. Offsets are
// not inverted: spans iterate in document order.
func SpanKey(s TenantScope, source uuid.UUID, start, end uint64) (k Key) {
	if !s.IsZero() {
		e := startKey(&k, Spans)
		e.tenant(s)
		e.id(source)
		e.u64(start)
		e.u64(end)
		e.done()
	}
	return k
}

// TraceKey is [scope 32][query id 16].
func TraceKey(s TenantScope, query uuid.UUID) (k Key) {
	if !s.IsZero() {
		e := startKey(&k, Traces)
		e.tenant(s)
		e.id(query)
		e.done()
	}
	return k
}

// jobTail writes the jobs shape after its scope.
func jobTail(e *encoder, state JobState, priority uint8, created Timestamp, id uuid.UUID) {
	e.u8(uint8(state))
	e.u8(priority)
	e.asc(created)
	e.id(id)
	e.done()
}

// JobKey is [scope 32][state 1][priority 1][created at 8][job id 16]. The
// creation time is not inverted: claims are FIFO within (state, priority).
// An unknown state yields the invalid Key.
func JobKey(s TenantScope, state JobState, priority uint8, created Timestamp, id uuid.UUID) (k Key) {
	if !s.IsZero() && state.Valid() {
		e := startKey(&k, Jobs)
		e.tenant(s)
		jobTail(&e, state, priority, created, id)
	}
	return k
}
