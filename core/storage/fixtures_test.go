package storage

import (
	"time"

	"github.com/google/uuid"
)

// Fixed inputs shared by the golden files, the layout test, the typed error
// tables, the fuzz seeds and the benchmarks. Every field has its own byte
// pattern so that a misplaced field is visible in a hex dump.
var (
	fxS  = mustScope(uuid.MustParse("01020304-0506-0708-090a-0b0c0d0e0f10"), uuid.MustParse("11121314-1516-1718-191a-1b1c1d1e1f20"))
	fxFF = mustScope(uuid.Max, uuid.Max) // the last scope: it has no successor

	fxA = uuid.MustParse("a1a2a3a4-a5a6-a7a8-a9aa-abacadaeafb0")
	fxB = uuid.MustParse("b1b2b3b4-b5b6-b7b8-b9ba-bbbcbdbebfc0")

	fxEdgeType = EdgeTypeHash(0xe1e2e3e4e5e6e7e8)
	fxLabel    = LabelHash(0xc1c2c3c4c5c6c7c8)
	fxModel    = ModelID(0x9192939495969798)
	fxProperty = PropertyHash(0xd1d2d3d4d5d6d7d8)
	fxBucket   = BucketHash(0xf1f2f3f4f5f6f7f8)
	fxRow      = uint32(0x0a0b0c0d)

	fxValid   = TimestampOf(time.Date(2024, 5, 6, 7, 8, 9, 101112000, time.UTC))
	fxTx      = TimestampOf(time.Date(2025, 1, 2, 3, 4, 5, 60708000, time.UTC))
	fxCreated = TimestampOf(time.Date(2025, 6, 7, 8, 9, 10, 111213000, time.UTC))
	fxBefore  = TimestampOf(time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)) // valid time before 1970

	fxSpanStart, fxSpanEnd = uint64(256), uint64(4096)
	fxState, fxPriority    = JobLeased, uint8(7)
	fxIndexKind            = IndexEdge
	fxDigest               = []byte("keyed digest of erased content")
)

// fxLegend names the fixed inputs in the golden files.
var fxLegend = []struct{ name, value string }{
	{"S", "tenant 01020304-0506-0708-090a-0b0c0d0e0f10, organization 11121314-1516-1718-191a-1b1c1d1e1f20"},
	{"FF", "tenant ffffffff-ffff-ffff-ffff-ffffffffffff, organization ffffffff-ffff-ffff-ffff-ffffffffffff (the last scope)"},
	{"A", fxA.String()},
	{"B", fxB.String()},
	{"Max", uuid.Max.String()},
	{"E", "edge type hash 0xe1e2e3e4e5e6e7e8"},
	{"L", "label hash 0xc1c2c3c4c5c6c7c8"},
	{"M", "model id 0x9192939495969798"},
	{"P", "property hash 0xd1d2d3d4d5d6d7d8"},
	{"K", "bucket hash 0xf1f2f3f4f5f6f7f8"},
	{"R", "row id 0x0a0b0c0d"},
	{"V", "valid start " + fxValid.String()},
	{"X", "tx start " + fxTx.String()},
	{"C", "created at " + fxCreated.String()},
	{"Old", "time " + fxBefore.String() + " (before 1970)"},
	{"D", "keyed digest " + `"` + string(fxDigest) + `"`},
}

func mustScope(tenant, organization uuid.UUID) TenantScope {
	s, err := NewTenantScope(tenant, organization)
	if err != nil {
		panic(err)
	}
	return s
}

// keyFixture is one key built from fixed inputs. The first fixture of each
// (family, shape) is canonical: it uses the inputs the layout test expects
// in each named field.
type keyFixture struct {
	call  string // the constructor call, in the names of fxLegend
	shape string // Layout.Shape of the key's layout
	build func() Key
}

func keyFixtures() []keyFixture {
	sys := SystemScope{}
	return []keyFixture{
		{"NodeVersionKey(S, A, V, X)", "", func() Key { return NodeVersionKey(fxS, fxA, fxValid, fxTx) }},
		{"EdgeVersionKey(S, A, V, X)", "", func() Key { return EdgeVersionKey(fxS, fxA, fxValid, fxTx) }},
		{"AdjacencyOutKey(S, A, E, V, X, B)", "", func() Key { return AdjacencyOutKey(fxS, fxA, fxEdgeType, fxValid, fxTx, fxB) }},
		{"AdjacencyInKey(S, B, E, V, X, A)", "", func() Key { return AdjacencyInKey(fxS, fxB, fxEdgeType, fxValid, fxTx, fxA) }},
		{"ValidTimeIndexKey(S, V, X, A, edge)", "", func() Key { return ValidTimeIndexKey(fxS, fxValid, fxTx, fxA, fxIndexKind) }},
		{"TxTimeIndexKey(S, X, V, A, edge)", "", func() Key { return TxTimeIndexKey(fxS, fxTx, fxValid, fxA, fxIndexKind) }},
		{"VectorKey(S, A, M, V, X)", "", func() Key { return VectorKey(fxS, fxA, fxModel, fxValid, fxTx) }},
		{"SchemaKey(S, L, X)", "", func() Key { return SchemaKey(fxS, fxLabel, fxTx) }},
		{"SystemScope.VectorModelKey(M, X)", "vector model registry", func() Key { return sys.VectorModelKey(fxModel, fxTx) }},
		{"SourceKey(S, A, X)", "", func() Key { return SourceKey(fxS, fxA, fxTx) }},
		{"RedactionRecordKey(S, A)", "redaction record / blocklist", func() Key { return RedactionRecordKey(fxS, fxA) }},
		{"SpanKey(S, A, 256, 4096)", "", func() Key { return SpanKey(fxS, fxA, fxSpanStart, fxSpanEnd) }},
		{"TraceKey(S, A)", "", func() Key { return TraceKey(fxS, fxA) }},
		{"JobKey(S, leased, 7, C, A)", "", func() Key { return JobKey(fxS, fxState, fxPriority, fxCreated, fxA) }},
		{"BitmapAllocKey(S, L)", "alloc", func() Key { return BitmapAllocKey(fxS, fxLabel) }},
		{"BitmapIDMapKey(S, L, R)", "id_map", func() Key { return BitmapIDMapKey(fxS, fxLabel, fxRow) }},
		{"BitmapRevMapKey(S, L, A)", "rev_map", func() Key { return BitmapRevMapKey(fxS, fxLabel, fxA) }},
		{"BitmapPostingKey(S, L, P, K)", "posting", func() Key { return BitmapPostingKey(fxS, fxLabel, fxProperty, fxBucket) }},
		{"BitmapPropCounterKey(S, L, P)", "prop_counter", func() Key { return BitmapPropCounterKey(fxS, fxLabel, fxProperty) }},

		// Edge cases of the encodings.
		{"NodeVersionKey(S, A, Old, 0)", "", func() Key { return NodeVersionKey(fxS, fxA, fxBefore, 0) }},
		{"NodeVersionKey(S, A, MinTimestamp, MaxTimestamp)", "", func() Key { return NodeVersionKey(fxS, fxA, MinTimestamp, MaxTimestamp) }},
		{"NodeVersionKey(FF, Max, -1, 1)", "", func() Key { return NodeVersionKey(fxFF, uuid.Max, -1, 1) }},
		{"ValidTimeIndexKey(S, V, X, A, node)", "", func() Key { return ValidTimeIndexKey(fxS, fxValid, fxTx, fxA, IndexNode) }},
		{`AdjacencyOutKey(S, A, HashEdgeType("KNOWS"), V, X, B)`, "", func() Key {
			return AdjacencyOutKey(fxS, fxA, HashEdgeType("KNOWS"), fxValid, fxTx, fxB)
		}},
		{`SystemScope.VectorModelKey(ModelIDOf("text-embedding-3-small"), X)`, "vector model registry", func() Key {
			return sys.VectorModelKey(ModelIDOf("text-embedding-3-small"), fxTx)
		}},
		{"EdgeTypeKey(S, E, X)", "", func() Key { return EdgeTypeKey(fxS, fxEdgeType, fxTx) }},
		{"SourceKey(S, A, MinTimestamp)", "", func() Key { return SourceKey(fxS, fxA, MinTimestamp) }},
		{"SourceKey(S, A, MaxTimestamp-1)", "", func() Key { return SourceKey(fxS, fxA, MaxTimestamp-1) }},
		{"BlocklistKey(S, D)", "redaction record / blocklist", func() Key { return BlocklistKey(fxS, fxDigest) }},
		{"JobKey(S, queued, 0, Old, A)", "", func() Key { return JobKey(fxS, JobQueued, 0, fxBefore, fxA) }},
		{"SystemScope.JobKey(dead, 255, C, B)", "", func() Key { return sys.JobKey(JobDead, 255, fxCreated, fxB) }},
		{`BitmapPostingKey(S, HashLabel("Person"), HashProperty("age"), HashBucket("42"))`, "posting", func() Key {
			return BitmapPostingKey(fxS, HashLabel("Person"), HashProperty("age"), HashBucket([]byte("42")))
		}},
	}
}

// rangeFixture is one range constructor call on fixed inputs.
type rangeFixture struct {
	call  string
	build func() (ScanRange, error)
}

func rangeFixtures() []rangeFixture {
	sys := SystemScope{}
	plain := func(r ScanRange) (ScanRange, error) { return r, nil }
	// Inputs built once, so that a fixture's build makes only the range.
	allNodes, historyA := TenantAll(fxS, NodeVersions), NodeHistory(fxS, fxA)
	cursor, cursorB := NodeVersionKey(fxS, fxA, fxValid, fxTx), NodeVersionKey(fxS, fxB, fxValid, fxTx)
	indexCursor := TxTimeIndexKey(fxS, fxTx, fxValid, fxA, fxIndexKind)
	storedLower, storedUpper := cat(refPrefix(fxS), fxA[:]), refSucc(refPrefix(fxS))
	return []rangeFixture{
		{"TenantAll(S, node_versions)", func() (ScanRange, error) { return plain(TenantAll(fxS, NodeVersions)) }},
		{"TenantAll(FF, jobs)", func() (ScanRange, error) { return plain(TenantAll(fxFF, Jobs)) }},
		{"NodeHistory(S, A)", func() (ScanRange, error) { return plain(NodeHistory(fxS, fxA)) }},
		{"NodeHistory(S, Max)", func() (ScanRange, error) { return plain(NodeHistory(fxS, uuid.Max)) }},
		{"NodeHistory(FF, A)", func() (ScanRange, error) { return plain(NodeHistory(fxFF, fxA)) }},
		{"NodeHistory(FF, Max)", func() (ScanRange, error) { return plain(NodeHistory(fxFF, uuid.Max)) }},
		{"EdgeHistory(S, A)", func() (ScanRange, error) { return plain(EdgeHistory(fxS, fxA)) }},
		{"AdjacencyOutRange(S, A)", func() (ScanRange, error) { return plain(AdjacencyOutRange(fxS, fxA)) }},
		{"AdjacencyInRange(S, B)", func() (ScanRange, error) { return plain(AdjacencyInRange(fxS, fxB)) }},
		{"AdjacencyOutTypeRange(S, A, E)", func() (ScanRange, error) { return plain(AdjacencyOutTypeRange(fxS, fxA, fxEdgeType)) }},
		{"AdjacencyInTypeRange(S, B, E)", func() (ScanRange, error) { return plain(AdjacencyInTypeRange(fxS, fxB, fxEdgeType)) }},
		{"ValidTimeFrom(S, V)", func() (ScanRange, error) { return plain(ValidTimeFrom(fxS, fxValid)) }},
		{"ValidTimeFrom(S, MinTimestamp)", func() (ScanRange, error) { return plain(ValidTimeFrom(fxS, MinTimestamp)) }},
		{"TxTimeBetween(S, V, X)", func() (ScanRange, error) { return TxTimeBetween(fxS, fxValid, fxTx) }},
		{"TxTimeBetween(S, MinTimestamp, MaxTimestamp)", func() (ScanRange, error) { return TxTimeBetween(fxS, MinTimestamp, MaxTimestamp) }},
		{"TxTimeBetween(S, X, V)", func() (ScanRange, error) { return TxTimeBetween(fxS, fxTx, fxValid) }},
		{"VectorHistory(S, A, M)", func() (ScanRange, error) { return plain(VectorHistory(fxS, fxA, fxModel)) }},
		{"SchemaHistory(S, L)", func() (ScanRange, error) { return plain(SchemaHistory(fxS, fxLabel)) }},
		{"EdgeTypeHistory(S, E)", func() (ScanRange, error) { return plain(EdgeTypeHistory(fxS, fxEdgeType)) }},
		{"SourceHistory(S, A)", func() (ScanRange, error) { return plain(SourceHistory(fxS, fxA)) }},
		{"SourceSpans(S, A)", func() (ScanRange, error) { return plain(SourceSpans(fxS, fxA)) }},
		{"JobsInState(S, queued)", func() (ScanRange, error) { return plain(JobsInState(fxS, JobQueued)) }},
		{"JobsInStatePriority(S, leased, 7)", func() (ScanRange, error) { return plain(JobsInStatePriority(fxS, fxState, fxPriority)) }},
		{"BitmapLabelRange(S, L)", func() (ScanRange, error) { return plain(BitmapLabelRange(fxS, fxLabel)) }},
		{"BitmapPostingsRange(S, L, P)", func() (ScanRange, error) { return plain(BitmapPostingsRange(fxS, fxLabel, fxProperty)) }},
		{"TenantAllAfterEntity(S, node_versions, A)", func() (ScanRange, error) { return TenantAllAfterEntity(fxS, NodeVersions, fxA) }},
		{"TenantAllAfterEntity(S, traces, Max)", func() (ScanRange, error) { return TenantAllAfterEntity(fxS, Traces, uuid.Max) }},
		{"TenantAllAfterEntity(S, schema, A)", func() (ScanRange, error) { return TenantAllAfterEntity(fxS, Schema, fxA) }},
		{"TenantAll(S, node_versions).After(NodeVersionKey(S, A, V, X))", func() (ScanRange, error) { return allNodes.After(cursor) }},
		{"NodeHistory(S, A).After(NodeVersionKey(S, B, V, X))", func() (ScanRange, error) { return historyA.After(cursorB) }},
		{"TemporalIndexAfter(S, TxTimeIndexKey(S, X, V, A, edge))", func() (ScanRange, error) { return TemporalIndexAfter(fxS, indexCursor) }},
		{"TemporalIndexAfter(S, NodeVersionKey(S, A, V, X))", func() (ScanRange, error) { return TemporalIndexAfter(fxS, cursor) }},
		{"FromStoredBounds(sources, S A, S+1)", func() (ScanRange, error) { return FromStoredBounds(Sources, storedLower, storedUpper) }},
		{"FromStoredBounds(sources, S A, nil)", func() (ScanRange, error) { return FromStoredBounds(Sources, storedLower, nil) }},
		{"SystemScope.FullFamily(jobs)", func() (ScanRange, error) { return plain(sys.FullFamily(Jobs)) }},
		{"SystemScope.JobsInState(queued)", func() (ScanRange, error) { return plain(sys.JobsInState(JobQueued)) }},
		{"SystemScope.VectorModels()", func() (ScanRange, error) { return plain(sys.VectorModels()) }},
		{"SystemScope.VectorModelHistory(M)", func() (ScanRange, error) { return plain(sys.VectorModelHistory(fxModel)) }},
	}
}
