package storage

import (
	"bytes"
	"reflect"
	"runtime"
	"slices"
	"strings"
)

// The layout table is the one description of every key shape. The setters
// write the bytes it describes; docs/key-layout.md is rendered from it
// (LayoutDoc); the facts the authority keeps about families (which hold
// system rows, which are keyed by entity, how long their keys are) are
// read from it; and the tests build, decode, fuzz, bound and scan every
// shape from it, with completeness tests that fail when an exported
// constructor, setter, decoder or range constructor is missing from it.

// FieldKind is what a key field holds. It fixes the field's width and
// encoding.
type FieldKind uint8

// The field kinds. All integers are big-endian.
const (
	FieldID           FieldKind = iota + 1 // a uuid.UUID, 16 raw bytes
	FieldHash                              // a 64-bit name hash or id: EdgeTypeHash, LabelHash, ModelID, PropertyHash, BucketHash
	FieldInvertedTime                      // a Timestamp, inverted: later times sort first
	FieldOrderedTime                       // a Timestamp, order-preserving: earlier times sort first
	FieldUint64
	FieldInvertedUint64 // a uint64, inverted (its bitwise complement): highest first
	FieldUint32
	FieldUint8
	FieldIndexKind  // an IndexKind byte
	FieldJobState   // a JobState byte
	FieldBitmapKind // a BitmapKind byte
)

var fieldKinds = [...]struct {
	width    int
	encoding string
}{
	FieldID:             {16, "uuid, 16 raw bytes"},
	FieldHash:           {8, "xxh3-64, big-endian"},
	FieldInvertedTime:   {8, "timestamp, inverted: latest first"},
	FieldOrderedTime:    {8, "timestamp, ascending"},
	FieldUint64:         {8, "uint64, big-endian"},
	FieldInvertedUint64: {8, "uint64, inverted (^v): highest first"},
	FieldUint32:         {4, "uint32, big-endian"},
	FieldUint8:          {1, "uint8"},
	FieldIndexKind:      {1, "index kind: 0x00 node, 0x01 edge"},
	FieldJobState:       {1, "job state: 0x01 queued to 0x05 dead"},
	FieldBitmapKind:     {1, "bitmap kind"},
}

// Width returns the number of bytes a field of this kind takes.
func (k FieldKind) Width() int { return fieldKinds[k].width }

// Field is one component of a key layout after the scope.
type Field struct {
	Name string
	Kind FieldKind
	// Fixed, if not nil, is the field's only value: the constructors write
	// it, and it is not one of their arguments. A fixed field tells the
	// layouts of one family apart (a bitmap kind, the reserved slot).
	Fixed []byte
	// Encoding, if set, replaces the kind's own description in the doc.
	Encoding string
}

// Width returns the field's width in bytes.
func (f Field) Width() int { return f.Kind.Width() }

// LayoutScope says which scopes hold rows of a layout.
type LayoutScope uint8

// The layout scopes.
const (
	TenantRows          LayoutScope = iota // rows of tenants only
	SystemRows                             // rows of the system scope only: reserved rows
	TenantAndSystemRows                    // rows of tenants and of the system scope
)

// Layout describes one key shape: the fields of a family, or of one of its
// shapes (the bitmap kinds, the reserved rows). Every key starts with the
// 32-byte scope; Fields are what follows it.
type Layout struct {
	Family ColumnFamily
	Shape  string // empty for a family's only (or main) shape
	Scope  LayoutScope
	Fields []Field
	Note   string

	// keys are the constructors of the layout, in function form: functions
	// (or SystemScope method expressions) that take the scope and then one
	// argument per field that is not fixed, in order.
	keys []any
	// scans are the range constructors that select a prefix of the
	// layout's fields.
	scans []Scan
}

// Scan is a range constructor that selects every row of a family whose
// scope and first fields are given: it takes the scope (a TenantScope, or
// none for a SystemScope method) and then one argument per field of
// Fields[:Prefix] that is not fixed, in order.
type Scan struct {
	Prefix int
	fn     any
}

// Len returns the layout's key length in bytes, scope included.
func (l Layout) Len() int {
	n := ScopeLen
	for _, f := range l.Fields {
		n += f.Width()
	}
	return n
}

// Constructors returns the layout's key constructors as function values,
// system ones included, for the tests that build every key shape.
//
//telha:restricted system the conformance suite only; call the typed key constructors
func (l Layout) Constructors() []any { return slices.Clone(l.keys) }

// Scans returns the layout's prefix range constructors.
func (l Layout) Scans() []Scan { return slices.Clone(l.scans) }

// Func returns the range constructor as a function value, system ones
// included, for the tests that scan every access pattern.
//
//telha:restricted system the conformance suite only; call the typed range constructors
func (s Scan) Func() any { return s.fn }

// Name returns the constructor's name, as in "NodeHistory" or
// "SystemScope.JobsInState".
func (s Scan) Name() string { return funcName(s.fn) }

// funcName returns the name of function f without its package path.
func funcName(f any) string {
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	return name[strings.LastIndexByte(name, '/')+1:][len("storage."):]
}

// The field vocabulary.
func id(name string) Field      { return Field{Name: name, Kind: FieldID} }
func hash(name string) Field    { return Field{Name: name, Kind: FieldHash} }
func invTime(name string) Field { return Field{Name: name, Kind: FieldInvertedTime} }

func bitmapFields(kind BitmapKind, more ...Field) []Field {
	head := []Field{hash("label_hash"), {Name: "kind", Kind: FieldBitmapKind, Fixed: []byte{byte(kind)}}}
	return append(head, more...)
}

// layouts is the layout table, in family order.
var layouts = []Layout{
	{
		Family: NodeVersions,
		Fields: []Field{id("logical_id"), invTime("valid_time_start"), invTime("tx_time_start")},
		keys:   []any{NodeVersionKey},
		scans:  []Scan{{1, NodeHistory}},
	},
	{
		Family: EdgeVersions,
		Fields: []Field{id("logical_id"), invTime("valid_time_start"), invTime("tx_time_start")},
		keys:   []any{EdgeVersionKey},
		scans:  []Scan{{1, EdgeHistory}},
	},
	{
		Family: EdgeVersions, Shape: "deployment secret", Scope: SystemRows,
		Fields: []Field{id("secret_id"), invTime("valid_time_start"), invTime("tx_time_start")},
		Note: "a secret of the deployment (the key of the blocklist's keyed digests), one row per version; readers take the earliest, " +
			"so that the first version written wins; reached only through the blocklist facade",
		keys:  []any{SystemScope.DeploymentSecretKey},
		scans: []Scan{{1, SystemScope.DeploymentSecretVersions}},
	},
	{
		Family: AdjacencyOut,
		Fields: []Field{id("from_id"), hash("edge_type_hash"), invTime("valid_time_start"), invTime("tx_time_start"), id("to_id")},
		keys:   []any{AdjacencyOutKey},
		scans:  []Scan{{1, AdjacencyOutRange}, {2, AdjacencyOutTypeRange}},
	},
	{
		Family: AdjacencyIn,
		Fields: []Field{id("to_id"), hash("edge_type_hash"), invTime("valid_time_start"), invTime("tx_time_start"), id("from_id")},
		keys:   []any{AdjacencyInKey},
		scans:  []Scan{{1, AdjacencyInRange}, {2, AdjacencyInTypeRange}},
	},
	{
		Family: ValidTimeIndex,
		Fields: []Field{invTime("valid_time_start"), invTime("tx_time_start"), id("logical_id"), {Name: "kind", Kind: FieldIndexKind}},
		Note:   "value: the primary version key (covering index)",
		keys:   []any{ValidTimeIndexKey},
	},
	{
		Family: TxTimeIndex,
		Fields: []Field{invTime("tx_time_start"), invTime("valid_time_start"), id("logical_id"), {Name: "kind", Kind: FieldIndexKind}},
		Note:   "value: the primary version key (covering index)",
		keys:   []any{TxTimeIndexKey},
	},
	{
		Family: Vectors,
		Fields: []Field{id("node_logical_id"), hash("embedding_model_id"), invTime("valid_time_start"), invTime("tx_time_start")},
		keys:   []any{VectorKey},
		scans:  []Scan{{1, NodeVectors}, {2, VectorHistory}},
	},
	{
		Family: Vectors, Shape: "credential", Scope: SystemRows,
		Fields: []Field{id("key_id"), {Name: "format", Kind: FieldUint64}, invTime("valid_time_start"), invTime("tx_time_start")},
		Note: "an API credential of the network server, one row per version (created, revoked), the latest wins; " +
			"the value names the tenant and holds a hash of the token, never the token; reached only through the credentials facade",
		keys:  []any{SystemScope.CredentialKey},
		scans: []Scan{{0, SystemScope.Credentials}, {1, SystemScope.CredentialVersions}},
	},
	{
		Family: Schema,
		Fields: []Field{hash("label_hash"), invTime("tx_time_start")},
		Note:   `edge type registrations use label_hash = xxh3("telha/edge_type/" || be64(edge_type_hash)) (EdgeTypeKey)`,
		keys:   []any{SchemaKey},
		scans:  []Scan{{1, SchemaHistory}},
	},
	{
		Family: Schema, Shape: "vector model registry", Scope: SystemRows,
		Fields: []Field{hash("model_id"), invTime("tx_time_start")},
		Note:   `model_id = xxh3("vector_model/" + name); deployment-global, reached only through the system facade`,
		keys:   []any{SystemScope.VectorModelKey},
		scans:  []Scan{{0, SystemScope.VectorModels}, {1, SystemScope.VectorModelHistory}},
	},
	{
		Family: Sources,
		Fields: []Field{id("blob_id"), {Name: "chunk_index", Kind: FieldInvertedUint64}},
		Note: "A blob's canonical text in chunks, indexes dense from 0; a scan meets them last chunk first, so readers fetch them by index. " +
			"chunk_index is never RedactionChunkIndex (math.MaxUint64): its inverted bytes are the reserved slot below. " +
			"The slot is a chunk index, not an inverted tx_time_start: see Decisions at the end.",
		keys:  []any{SourceChunkKey},
		scans: []Scan{{1, SourceRows}},
	},
	{
		Family: Sources, Shape: "redaction record / blocklist",
		Fields: []Field{id("blob_id or blocklist_id"), {Name: "slot", Kind: FieldInvertedUint64, Fixed: make([]byte, 8),
			Encoding: "RedactionChunkIndex (math.MaxUint64), inverted: eight zero bytes"}},
		Note: `blocklist_id = blake3("telha/blocklist/v1" || keyed_digest)[:16] (BlocklistKey)`,
		keys: []any{RedactionRecordKey},
	},
	{
		Family: Sources, Shape: "erasure ledger", Scope: SystemRows,
		Fields: []Field{id("entry_id"), invTime("recorded_at")},
		Note:   "entry_id is a UUIDv7: entries read in the order they were written; reached only through the erasure ledger facade",
		keys:   []any{SystemScope.LedgerEntryKey},
		scans:  []Scan{{0, SystemScope.LedgerEntries}, {1, SystemScope.LedgerEntryHistory}},
	},
	{
		Family: Spans,
		Fields: []Field{id("source_id"), {Name: "span_start", Kind: FieldUint64}, {Name: "span_end", Kind: FieldUint64}},
		Note:   "offsets ascending: document order. span_start is never math.MaxUint64: those bytes mark the fact shape below",
		keys:   []any{SpanKey},
		scans:  []Scan{{1, SourceSpans}},
	},
	{
		Family: Spans, Shape: "fact to span",
		Fields: []Field{id("fact_id"), {Name: "marker", Kind: FieldUint64, Fixed: bytes.Repeat([]byte{0xff}, 8),
			Encoding: "always 0xffffffffffffffff: no span starts at math.MaxUint64"},
			id("source_id"), {Name: "span_start", Kind: FieldUint64}, {Name: "span_end", Kind: FieldUint64}},
		Note:  "the reverse index of the spans above: the passages a node or edge (fact_id, its logical id) was asserted from",
		keys:  []any{FactSpanKey},
		scans: []Scan{{2, FactSpans}},
	},
	{
		Family: Spans, Shape: "counter", Scope: SystemRows,
		Fields: []Field{id("owner_id"), {Name: "counter", Kind: FieldHash, Encoding: "a CounterName, big-endian"}, {Name: "counter_id", Kind: FieldUint64}},
		Note: "a counter that the processes sharing a store move forward with conditional batches: per tenant (owner_id = TenantRecordID) " +
			"its transaction clock (counter 1), its cache generation (2), the vectors sequence of a model (3, counter_id the model id); " +
			"deployment-wide (owner_id nil) the tenant registry's (4) and an embedding model's registrations (5). " +
			"counter is never math.MaxUint64, the fact shape's marker; reached only through storage's counters and the facades",
		keys:  []any{SystemScope.CounterKey},
		scans: []Scan{{1, SystemScope.Counters}},
	},
	{
		Family: Traces,
		Fields: []Field{id("query_id")},
		keys:   []any{TraceKey},
	},
	{
		Family: Traces, Shape: "tenant registry", Scope: SystemRows,
		Fields: []Field{id("record_id")},
		Note:   `record_id = blake3("telha/tenant/v1" || tenant scope)[:16] (TenantRecordID); reached only through the tenant registry facade`,
		keys:   []any{SystemScope.TenantRecordKey},
		scans:  []Scan{{0, SystemScope.TenantRecords}},
	},
	{
		Family: Jobs, Scope: TenantAndSystemRows,
		Fields: []Field{{Name: "state", Kind: FieldJobState}, {Name: "priority", Kind: FieldUint8},
			{Name: "created_at", Kind: FieldOrderedTime}, id("job_id")},
		Note:  "created_at ascending: FIFO within (state, priority)",
		keys:  []any{JobKey, SystemScope.JobKey},
		scans: []Scan{{1, JobsInState}, {2, JobsInStatePriority}, {1, SystemScope.JobsInState}},
	},
	{
		Family: BitmapIndex, Shape: "alloc",
		Fields: bitmapFields(BitmapAlloc),
		Note:   "row-id watermark of one (tenant, label)",
		keys:   []any{BitmapAllocKey},
		scans:  []Scan{{1, BitmapLabelRange}},
	},
	{
		Family: BitmapIndex, Shape: "id_map",
		Fields: bitmapFields(BitmapIDMap, Field{Name: "row_id", Kind: FieldUint32}),
		Note:   "row id -> logical id",
		keys:   []any{BitmapIDMapKey},
	},
	{
		Family: BitmapIndex, Shape: "rev_map",
		Fields: bitmapFields(BitmapRevMap, id("logical_id")),
		Note:   "logical id -> row id",
		keys:   []any{BitmapRevMapKey},
	},
	{
		Family: BitmapIndex, Shape: "posting",
		Fields: bitmapFields(BitmapPosting, hash("property_hash"), hash("bucket_hash")),
		Note:   "roaring posting list of one (property, bucket)",
		keys:   []any{BitmapPostingKey},
		scans:  []Scan{{3, BitmapPostingsRange}},
	},
	{
		Family: BitmapIndex, Shape: "prop_counter",
		Fields: bitmapFields(BitmapPropCounter, hash("property_hash")),
		Note:   "distinct-value counter; math.MaxUint32 marks overflow",
		keys:   []any{BitmapPropCounterKey},
	},
}

// Layouts returns the layout table, in family order.
func Layouts() []Layout { return slices.Clone(layouts) }

// familyFacts are the facts the table states about the families.
type familyFacts struct {
	system [LastFamily + 1]bool // some layout holds rows of the system scope
	entity [LastFamily + 1]bool // every layout starts with an id
	// keyLen is the key length of each family whose layouts all have one
	// length; bitmap_index keys take theirs from their kind byte.
	keyLen        [LastFamily + 1]int
	bitmapKindLen [BitmapPropCounter + 1]int
}

// facts is read from the table once. It is a variable, not an init
// function, so that other variables may depend on it.
var facts = func() (f familyFacts) {
	for _, cf := range Families() {
		f.entity[cf] = true
	}
	for _, l := range layouts {
		cf := l.Family
		f.system[cf] = f.system[cf] || l.Scope != TenantRows
		f.entity[cf] = f.entity[cf] && l.Fields[0].Kind == FieldID
		if cf == BitmapIndex {
			f.bitmapKindLen[l.Fields[1].Fixed[0]] = l.Len() // the kind byte, after the label
		} else {
			f.keyLen[cf] = l.Len()
		}
	}
	return f
}()

// hasSystemRows reports whether family cf holds rows of the system scope.
func hasSystemRows(cf ColumnFamily) bool { return facts.system[cf] }

// KeyedByEntity reports whether every key of family cf puts an entity id
// (a logical id, a source, a query) right after the scope, so that the
// family pages by entity (TenantAllAfterEntity).
func (cf ColumnFamily) KeyedByEntity() bool { return cf.Valid() && facts.entity[cf] }
