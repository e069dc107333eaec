package storage

import (
	"bytes"
	"fmt"

	"github.com/google/uuid"
)

// This file holds one ScanRange constructor per access pattern. Each takes a
// TenantScope first, returns the zero (invalid) range for the zero scope, and
// allocates exactly once.

func idRange(cf ColumnFamily, s TenantScope, id uuid.UUID) ScanRange {
	var k Key
	return startPrefix(&k, cf, s).id(id).prefixRange()
}

// TenantAll is every row of one family in one tenant: whole-tenant export,
// GDPR verification passes, and pagination roots.
func TenantAll(s TenantScope, cf ColumnFamily) ScanRange {
	if !cf.Valid() {
		return ScanRange{}
	}
	var k Key
	return startPrefix(&k, cf, s).prefixRange()
}

// NodeHistory is every version of one node, latest valid time first.
func NodeHistory(s TenantScope, id uuid.UUID) ScanRange { return idRange(NodeVersions, s, id) }

// EdgeHistory is every version of one edge, latest valid time first.
func EdgeHistory(s TenantScope, id uuid.UUID) ScanRange { return idRange(EdgeVersions, s, id) }

// AdjacencyOutRange is every outgoing adjacency row of from, all edge types.
func AdjacencyOutRange(s TenantScope, from uuid.UUID) ScanRange {
	return idRange(AdjacencyOut, s, from)
}

// AdjacencyInRange is every incoming adjacency row of to, all edge types.
func AdjacencyInRange(s TenantScope, to uuid.UUID) ScanRange { return idRange(AdjacencyIn, s, to) }

func adjacencyTypeRange(cf ColumnFamily, s TenantScope, anchor uuid.UUID, edgeType EdgeTypeHash) ScanRange {
	var k Key
	return startPrefix(&k, cf, s).id(anchor).u64(uint64(edgeType)).prefixRange()
}

// AdjacencyOutTypeRange is the outgoing adjacency rows of from with one edge type.
func AdjacencyOutTypeRange(s TenantScope, from uuid.UUID, edgeType EdgeTypeHash) ScanRange {
	return adjacencyTypeRange(AdjacencyOut, s, from, edgeType)
}

// AdjacencyInTypeRange is the incoming adjacency rows of to with one edge type.
func AdjacencyInTypeRange(s TenantScope, to uuid.UUID, edgeType EdgeTypeHash) ScanRange {
	return adjacencyTypeRange(AdjacencyIn, s, to, edgeType)
}

// ValidTimeFrom starts the global "valid at T" scan: every valid_time_index
// row of the tenant whose valid start is at or before t, latest first.
func ValidTimeFrom(s TenantScope, t Timestamp) ScanRange {
	var k Key
	return startPrefix(&k, ValidTimeIndex, s).inv(t).fromRange()
}

// TxTimeBetween is every tx_time_index row of the tenant whose tx start lies
// in [from, to], latest first: "what changed between two transactions".
func TxTimeBetween(s TenantScope, from, to Timestamp) (ScanRange, error) {
	if s.IsZero() {
		return ScanRange{}, ErrInvalidRange
	}
	if from > to {
		return ScanRange{}, fmt.Errorf("tx time between %s and %s: %w", from, to, ErrEmptyRange)
	}
	var lk, hk Key
	lo := startPrefix(&lk, TxTimeIndex, s).inv(to)
	hi := startPrefix(&hk, TxTimeIndex, s).inv(from)
	return between(lo, hi)
}

// VectorHistory is every version of one node's embedding under one model.
func VectorHistory(s TenantScope, node uuid.UUID, model ModelID) ScanRange {
	var k Key
	return startPrefix(&k, Vectors, s).id(node).u64(uint64(model)).prefixRange()
}

// SchemaHistory is every tx version of one label's schema row, latest first.
func SchemaHistory(s TenantScope, label LabelHash) ScanRange {
	var k Key
	return startPrefix(&k, Schema, s).u64(uint64(label)).prefixRange()
}

// EdgeTypeHistory is every registration row of edge type hash h, latest
// first.
func EdgeTypeHistory(s TenantScope, h EdgeTypeHash) ScanRange {
	return SchemaHistory(s, EdgeTypeLabel(h))
}

// SourceHistory is every row of one source: its redaction record first, if
// any, then its versions latest first.
func SourceHistory(s TenantScope, source uuid.UUID) ScanRange { return idRange(Sources, s, source) }

// SourceSpans is every span of one source in document order.
func SourceSpans(s TenantScope, source uuid.UUID) ScanRange { return idRange(Spans, s, source) }

// JobsInState is the tenant's jobs in one state, by priority byte, then FIFO.
func JobsInState(s TenantScope, state JobState) ScanRange {
	if !state.Valid() {
		return ScanRange{}
	}
	var k Key
	return startPrefix(&k, Jobs, s).u8(uint8(state)).prefixRange()
}

// JobsInStatePriority is the tenant's jobs in one state and priority, FIFO.
func JobsInStatePriority(s TenantScope, state JobState, priority uint8) ScanRange {
	if !state.Valid() {
		return ScanRange{}
	}
	var k Key
	return startPrefix(&k, Jobs, s).u8(uint8(state)).u8(priority).prefixRange()
}

// BitmapLabelRange is every bitmap_index row of one (tenant, label).
func BitmapLabelRange(s TenantScope, label LabelHash) ScanRange {
	var k Key
	return startPrefix(&k, BitmapIndex, s).u64(uint64(label)).prefixRange()
}

// BitmapPostingsRange is every posting list of one property of one label:
// its equality buckets and range bands.
func BitmapPostingsRange(s TenantScope, label LabelHash, property PropertyHash) ScanRange {
	var k Key
	return startPrefix(&k, BitmapIndex, s).u64(uint64(label)).u8(uint8(BitmapPosting)).u64(uint64(property)).prefixRange()
}

// TenantAllAfterEntity is the rest of the tenant's rows of family cf after
// every row of entity id: the pagination cursor of the families keyed by
// entity. Another family is refused with ErrNotKeyedByEntity.
func TenantAllAfterEntity(s TenantScope, cf ColumnFamily, id uuid.UUID) (ScanRange, error) {
	if s.IsZero() {
		return ScanRange{}, ErrInvalidRange
	}
	if !cf.Valid() {
		return ScanRange{}, fmt.Errorf("tenant all after entity: %w %d", ErrUnknownFamily, uint8(cf))
	}
	if !cf.KeyedByEntity() {
		return ScanRange{}, fmt.Errorf("tenant all after entity: %s: %w", cf, ErrNotKeyedByEntity)
	}
	var k Key
	lo := startPrefix(&k, cf, s).id(id)
	buf, ok := successor(make([]byte, 0, 2*(ScopeLen+16)), lo.bytes())
	if !ok || !bytes.HasPrefix(buf, k.b[:ScopeLen]) {
		return ScanRange{}, fmt.Errorf("tenant all after entity %s: %w", id, ErrEmptyRange)
	}
	lower := buf[:len(buf):len(buf)]
	upper, ok := successor(buf[len(buf):], k.b[:ScopeLen])
	if !ok {
		upper = nil
	}
	return ScanRange{family: cf, lower: lower, upper: upper}, nil
}

// TemporalIndexAfter resumes a whole-tenant temporal index scan after
// cursor, a key of valid_time_index or tx_time_index. A cursor of another
// scope or family is rejected with ErrOutOfRange.
func TemporalIndexAfter(s TenantScope, cursor Key) (ScanRange, error) {
	if cursor.family != ValidTimeIndex && cursor.family != TxTimeIndex {
		return ScanRange{}, fmt.Errorf("temporal index after %s: %w", cursor, ErrOutOfRange)
	}
	// The whole-tenant range lives on the stack: After makes the one
	// allocation.
	var k Key
	e := startPrefix(&k, cursor.family, s)
	if !e.valid {
		return ScanRange{}, ErrInvalidRange
	}
	var limit [ScopeLen]byte
	upper, ok := successor(limit[:0], e.bytes())
	if !ok {
		upper = nil
	}
	return ScanRange{family: cursor.family, lower: e.bytes(), upper: upper}.After(cursor)
}

// FullFamily is every row of cf, across all tenants and the system scope:
// the job reaper's lease sweep and other whole-store maintenance. Engines
// scan it in total order, not by prefix.
//
//telha:restricted system use storage.TenantAll for one tenant, or the reaper sweep in telha.dev/core/storage/system/jobqueue
func (SystemScope) FullFamily(cf ColumnFamily) ScanRange {
	if !cf.Valid() {
		return ScanRange{}
	}
	return ScanRange{family: cf, lower: make([]byte, ScopeLen), system: true, crossesScopes: true}
}

// JobsInState is the system jobs in one state, by priority, then FIFO.
//
//telha:restricted system use storage.JobsInState with a TenantScope, or the job queue facade in telha.dev/core/storage/system/jobqueue
func (s SystemScope) JobsInState(state JobState) ScanRange {
	if !state.Valid() {
		return ScanRange{}
	}
	var k Key
	return startSystemPrefix(&k, Jobs).u8(uint8(state)).prefixRange()
}

// VectorModels is every row of the embedding-model registry.
//
//telha:restricted system use the model registry in telha.dev/core/storage/system/models
func (s SystemScope) VectorModels() ScanRange {
	var k Key
	return startSystemPrefix(&k, Schema).prefixRange()
}

// VectorModelHistory is every tx version of one embedding model, latest first.
//
//telha:restricted system use the model registry in telha.dev/core/storage/system/models
func (s SystemScope) VectorModelHistory(model ModelID) ScanRange {
	var k Key
	return startSystemPrefix(&k, Schema).u64(uint64(model)).prefixRange()
}

// FromStoredBounds rehydrates a tenant's range from bounds that this tree
// emitted earlier (a GDPR replay program). It re-checks tenant confinement:
// lower must start with a tenant scope (not the all-zero system prefix, nor
// a half-nil one), upper must lie above lower and at or below that scope's
// upper bound, so the result never spans two scopes and never reaches a
// system row.
//
//telha:restricted rawbytes use a typed range constructor such as storage.TenantAll
func FromStoredBounds(cf ColumnFamily, lower, upper []byte) (ScanRange, error) {
	if !cf.Valid() {
		return ScanRange{}, fmt.Errorf("stored bounds: %w %d", ErrUnknownFamily, uint8(cf))
	}
	if len(lower) < ScopeLen {
		return ScanRange{}, fmt.Errorf("stored bounds of %s: lower bound of %d bytes: %w", cf, len(lower), ErrWrongLength)
	}
	switch scope := lower[:ScopeLen]; {
	case isSystemPrefix(scope):
		return ScanRange{}, fmt.Errorf("stored bounds of %s: the system prefix: %w", cf, ErrNilScope)
	case !isTenantPrefix(scope):
		return ScanRange{}, fmt.Errorf("stored bounds of %s: scope %x: %w", cf, scope, ErrHalfNilScope)
	}
	buf := make([]byte, 0, len(lower)+max(len(upper), ScopeLen))
	buf = append(buf, lower...)
	limit, bounded := successor(buf[len(buf):], lower[:ScopeLen])
	switch {
	case upper == nil && bounded:
		return ScanRange{}, fmt.Errorf("stored bounds of %s: unbounded upper: %w", cf, ErrNotConfined)
	case upper != nil && bounded && bytes.Compare(upper, limit) > 0:
		return ScanRange{}, fmt.Errorf("stored bounds of %s: upper %x beyond scope bound %x: %w", cf, upper, limit, ErrNotConfined)
	case upper != nil && bytes.Compare(lower, upper) >= 0:
		return ScanRange{}, fmt.Errorf("stored bounds of %s: %w", cf, ErrEmptyRange)
	}
	r := ScanRange{family: cf, lower: buf[:len(lower):len(lower)]}
	if upper != nil {
		r.upper = append(buf[len(lower):len(lower)], upper...)
	}
	return r, nil
}
