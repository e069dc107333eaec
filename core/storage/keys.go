package storage

import "github.com/google/uuid"

// This file holds one constructor per key layout of spec §5.2. Each exported
// constructor takes a TenantScope first and returns the zero (invalid) Key
// when the scope is the zero value. The unexported layout functions take the
// prefix so that SystemScope can share the same shapes.

func versionKey(cf ColumnFamily, p [ScopeLen]byte, id uuid.UUID, validStart, txStart Timestamp) Key {
	e := encoder{k: Key{family: cf}}
	e.scope(p)
	e.raw(id[:])
	e.inv(validStart)
	e.inv(txStart)
	return e.k
}

// NodeVersionKey is [scope 32][logical id 16][inv valid start 8][inv tx start 8]:
// one version of a node, latest valid time first, then latest tx time first.
func NodeVersionKey(s TenantScope, id uuid.UUID, validStart, txStart Timestamp) Key {
	if s.IsZero() {
		return Key{}
	}
	return versionKey(NodeVersions, s.prefix(), id, validStart, txStart)
}

// EdgeVersionKey has the node version layout in the edge_versions family.
func EdgeVersionKey(s TenantScope, id uuid.UUID, validStart, txStart Timestamp) Key {
	if s.IsZero() {
		return Key{}
	}
	return versionKey(EdgeVersions, s.prefix(), id, validStart, txStart)
}

func adjacencyKey(cf ColumnFamily, s TenantScope, anchor uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, neighbor uuid.UUID) Key {
	if s.IsZero() {
		return Key{}
	}
	e := encoder{k: Key{family: cf}}
	e.scope(s.prefix())
	e.raw(anchor[:])
	e.u64(uint64(edgeType))
	e.inv(validStart)
	e.inv(txStart)
	e.raw(neighbor[:])
	return e.k
}

// AdjacencyOutKey is [scope 32][from 16][edge type 8][inv valid start 8][inv tx start 8][to 16].
func AdjacencyOutKey(s TenantScope, from uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, to uuid.UUID) Key {
	return adjacencyKey(AdjacencyOut, s, from, edgeType, validStart, txStart, to)
}

// AdjacencyInKey is [scope 32][to 16][edge type 8][inv valid start 8][inv tx start 8][from 16].
func AdjacencyInKey(s TenantScope, to uuid.UUID, edgeType EdgeTypeHash, validStart, txStart Timestamp, from uuid.UUID) Key {
	return adjacencyKey(AdjacencyIn, s, to, edgeType, validStart, txStart, from)
}

func temporalIndexKey(cf ColumnFamily, s TenantScope, first, second Timestamp, id uuid.UUID, kind IndexKind) Key {
	if s.IsZero() {
		return Key{}
	}
	e := encoder{k: Key{family: cf}}
	e.scope(s.prefix())
	e.inv(first)
	e.inv(second)
	e.raw(id[:])
	e.u8(uint8(kind))
	return e.k
}

// ValidTimeIndexKey is [scope 32][inv valid start 8][inv tx start 8][logical id 16][kind 1].
// Its stored value is the primary key of the version it indexes.
func ValidTimeIndexKey(s TenantScope, validStart, txStart Timestamp, id uuid.UUID, kind IndexKind) Key {
	return temporalIndexKey(ValidTimeIndex, s, validStart, txStart, id, kind)
}

// TxTimeIndexKey is [scope 32][inv tx start 8][inv valid start 8][logical id 16][kind 1].
// Its stored value is the primary key of the version it indexes.
func TxTimeIndexKey(s TenantScope, txStart, validStart Timestamp, id uuid.UUID, kind IndexKind) Key {
	return temporalIndexKey(TxTimeIndex, s, txStart, validStart, id, kind)
}

// VectorKey is [scope 32][node id 16][model id 8][inv valid start 8][inv tx start 8].
func VectorKey(s TenantScope, node uuid.UUID, model ModelID, validStart, txStart Timestamp) Key {
	if s.IsZero() {
		return Key{}
	}
	e := encoder{k: Key{family: Vectors}}
	e.scope(s.prefix())
	e.raw(node[:])
	e.u64(uint64(model))
	e.inv(validStart)
	e.inv(txStart)
	return e.k
}

func schemaKey(p [ScopeLen]byte, hash uint64, txStart Timestamp) Key {
	e := encoder{k: Key{family: Schema}}
	e.scope(p)
	e.u64(hash)
	e.inv(txStart)
	return e.k
}

// SchemaKey is [scope 32][label hash 8][inv tx start 8].
func SchemaKey(s TenantScope, label LabelHash, txStart Timestamp) Key {
	if s.IsZero() {
		return Key{}
	}
	return schemaKey(s.prefix(), uint64(label), txStart)
}

// sourceKey writes the 56-byte sources shape with a raw, not yet inverted,
// slot value; the slot is a tx time or the reserved RedactionChunkIndex.
func sourceKey(s TenantScope, id uuid.UUID, slot uint64) Key {
	if s.IsZero() {
		return Key{}
	}
	e := encoder{k: Key{family: Sources}}
	e.scope(s.prefix())
	e.raw(id[:])
	e.u64(invert(slot))
	return e.k
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
func SpanKey(s TenantScope, source uuid.UUID, start, end uint64) Key {
	if s.IsZero() {
		return Key{}
	}
	e := encoder{k: Key{family: Spans}}
	e.scope(s.prefix())
	e.raw(source[:])
	e.u64(start)
	e.u64(end)
	return e.k
}

// TraceKey is [scope 32][query id 16].
func TraceKey(s TenantScope, query uuid.UUID) Key {
	if s.IsZero() {
		return Key{}
	}
	e := encoder{k: Key{family: Traces}}
	e.scope(s.prefix())
	e.raw(query[:])
	return e.k
}

func jobKey(p [ScopeLen]byte, state JobState, priority uint8, created Timestamp, id uuid.UUID) Key {
	e := encoder{k: Key{family: Jobs}}
	e.scope(p)
	e.u8(uint8(state))
	e.u8(priority)
	e.asc(created)
	e.raw(id[:])
	return e.k
}

// JobKey is [scope 32][state 1][priority 1][created at 8][job id 16]. The
// creation time is not inverted: claims are FIFO within (state, priority).
// An unknown state yields the invalid Key.
func JobKey(s TenantScope, state JobState, priority uint8, created Timestamp, id uuid.UUID) Key {
	if s.IsZero() || !state.Valid() {
		return Key{}
	}
	return jobKey(s.prefix(), state, priority, created, id)
}
