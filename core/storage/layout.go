package storage

import (
	"fmt"
	"strings"
)

// Field is one fixed-width component of a key layout.
type Field struct {
	Name     string
	Width    int
	Encoding string
}

// Layout describes one key shape: the fields of a family, or of one kind of
// the bitmap_index family, or a reserved row. The layout table is the source
// of docs/key-layout.md (`telha debug layout`); tests check every entry
// against the bytes the constructors produce, so the document cannot drift
// from the code.
type Layout struct {
	Family ColumnFamily
	Shape  string // empty for a family's only shape
	Fields []Field
	Note   string
}

// Len returns the layout's total width in bytes.
func (l Layout) Len() int {
	n := 0
	for _, f := range l.Fields {
		n += f.Width
	}
	return n
}

// The field vocabulary.
var (
	fScope       = Field{"scope", ScopeLen, "tenant id 16 + organization id 16; all zero for the system scope"}
	fSystem      = Field{"scope", ScopeLen, "all zero: the reserved system scope"}
	fID          = func(name string) Field { return Field{name, 16, "uuid, 16 raw bytes"} }
	fHash        = func(name string) Field { return Field{name, 8, "xxh3-64, big-endian"} }
	fInv         = func(name string) Field { return Field{name, 8, "timestamp, inverted: latest first"} }
	fAsc         = func(name string) Field { return Field{name, 8, "timestamp, ascending"} }
	fU64         = func(name string) Field { return Field{name, 8, "uint64, big-endian"} }
	fByte        = func(name, enc string) Field { return Field{name, 1, enc} }
	bitmapFields = []Field{fScope, fHash("label_hash"), fByte("kind", "bitmap kind")}
)

// Layouts returns every key layout, in family order.
func Layouts() []Layout {
	version := []Field{fScope, fID("logical_id"), fInv("valid_time_start"), fInv("tx_time_start")}
	adjacency := func(anchor, neighbor string) []Field {
		return []Field{fScope, fID(anchor), fHash("edge_type_hash"), fInv("valid_time_start"), fInv("tx_time_start"), fID(neighbor)}
	}
	index := func(first, second string) []Field {
		return []Field{fScope, fInv(first), fInv(second), fID("logical_id"), fByte("kind", "0x00 node, 0x01 edge")}
	}
	bitmap := func(fields ...Field) []Field { return append(append([]Field(nil), bitmapFields...), fields...) }
	return []Layout{
		{Family: NodeVersions, Fields: version},
		{Family: EdgeVersions, Fields: version},
		{Family: AdjacencyOut, Fields: adjacency("from_id", "to_id")},
		{Family: AdjacencyIn, Fields: adjacency("to_id", "from_id")},
		{Family: ValidTimeIndex, Fields: index("valid_time_start", "tx_time_start"), Note: "value: the primary version key (covering index)"},
		{Family: TxTimeIndex, Fields: index("tx_time_start", "valid_time_start"), Note: "value: the primary version key (covering index)"},
		{Family: Vectors, Fields: []Field{fScope, fID("node_logical_id"), fHash("embedding_model_id"), fInv("valid_time_start"), fInv("tx_time_start")}},
		{Family: Schema, Fields: []Field{fScope, fHash("label_hash"), fInv("tx_time_start")},
			Note: `edge type registrations use label_hash = xxh3("telha/edge_type/" || be64(edge_type_hash))`},
		{Family: Schema, Shape: "vector model registry", Fields: []Field{fSystem, fHash("model_id"), fInv("tx_time_start")},
			Note: `model_id = xxh3("vector_model/" + name); deployment-global, reached only through the system facade`},
		{Family: Sources, Fields: []Field{fScope, fID("source_id"), fInv("tx_time_start")}},
		{Family: Sources, Shape: "redaction record / blocklist", Fields: []Field{fScope, fID("blob_id or blocklist_id"), Field{"slot", 8, "inv(u64::MAX) = 0: REDACTION_CHUNK_INDEX"}},
			Note: `blocklist_id = blake3("telha/blocklist/v1" || keyed_digest)[:16]`},
		{Family: Spans, Fields: []Field{fScope, fID("source_id"), fU64("span_start"), fU64("span_end")}, Note: "offsets ascending: document order"},
		{Family: Traces, Fields: []Field{fScope, fID("query_id")}},
		{Family: Jobs, Fields: []Field{fScope, fByte("state", "job state"), fByte("priority", "uint8"), fAsc("created_at"), fID("job_id")},
			Note: "created_at ascending: FIFO within (state, priority); system jobs use the all-zero scope"},
		{Family: BitmapIndex, Shape: "alloc", Fields: bitmap(), Note: "kind 0x00: row-id watermark of one (tenant, label)"},
		{Family: BitmapIndex, Shape: "id_map", Fields: bitmap(Field{"row_id", 4, "uint32, big-endian"}), Note: "kind 0x01: row id -> logical id"},
		{Family: BitmapIndex, Shape: "rev_map", Fields: bitmap(fID("logical_id")), Note: "kind 0x02: logical id -> row id"},
		{Family: BitmapIndex, Shape: "posting", Fields: bitmap(fHash("property_hash"), fHash("bucket_hash")), Note: "kind 0x03: roaring posting list of one (property, bucket)"},
		{Family: BitmapIndex, Shape: "prop_counter", Fields: bitmap(fHash("property_hash")), Note: "kind 0x04: distinct-value counter; u32::MAX marks overflow"},
	}
}

// LayoutDoc renders the layout table as the Markdown of docs/key-layout.md.
func LayoutDoc() string {
	var b strings.Builder
	fams := Families()
	fmt.Fprintf(&b, "# Telha key layout\n\n")
	fmt.Fprintf(&b, "Generated by `telha debug layout` from `core/storage/layout.go`; a test fails when this file and the code disagree.\n\n")
	fmt.Fprintf(&b, "There are %d column families:", len(fams))
	for i, cf := range fams {
		sep := ","
		if i == len(fams)-1 {
			sep = "."
		}
		fmt.Fprintf(&b, " `%s`%s", cf, sep)
	}
	fmt.Fprintf(&b, "\n\nEvery key starts with the %d-byte scope; all integers are big-endian. ", ScopeLen)
	fmt.Fprintf(&b, "Timestamps are signed microseconds since the Unix epoch, made order-preserving by flipping the sign bit; ")
	fmt.Fprintf(&b, "an inverted timestamp is the bitwise complement of that, so later times sort first.\n")
	for _, l := range Layouts() {
		title := l.Family.String()
		if l.Shape != "" {
			title += ": " + l.Shape
		}
		fmt.Fprintf(&b, "\n## %s (%d bytes)\n\n", title, l.Len())
		fmt.Fprintf(&b, "| offset | field | width | encoding |\n| ---: | --- | ---: | --- |\n")
		off := 0
		for _, f := range l.Fields {
			fmt.Fprintf(&b, "| %d | %s | %d | %s |\n", off, f.Name, f.Width, f.Encoding)
			off += f.Width
		}
		if l.Note != "" {
			fmt.Fprintf(&b, "\n%s\n", l.Note)
		}
	}
	return b.String()
}
