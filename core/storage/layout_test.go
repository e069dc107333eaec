package storage

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// field is one named field of a key, with its bytes written by hand from
// spec §5.2 and the reference encodings of gen_test.go.
type field struct {
	name string
	b    []byte
}

// handKeys gives, for every key fixture, its fields in order. The names are
// those of the Layout the fixture belongs to.
func handKeys() map[string][]field {
	s, z, ff := refPrefix(fxS), make([]byte, ScopeLen), refPrefix(fxFF)
	blocklist := refBlocklistID(fxDigest)
	version := func(scope, id []byte, v, x Timestamp) []field {
		return []field{{"scope", scope}, {"logical_id", id}, {"valid_time_start", refInv(v)}, {"tx_time_start", refInv(x)}}
	}
	source := func(x []byte) []field { return []field{{"scope", s}, {"source_id", fxA[:]}, {"tx_time_start", x}} }
	redaction := func(id []byte) []field {
		return []field{{"scope", s}, {"blob_id or blocklist_id", id}, {"slot", make([]byte, 8)}} // inv(u64::MAX) = 0
	}
	job := func(scope []byte, state JobState, priority uint8, created Timestamp, id []byte) []field {
		return []field{{"scope", scope}, {"state", []byte{byte(state)}}, {"priority", []byte{priority}}, {"created_at", refAsc(created)}, {"job_id", id}}
	}
	bitmap := func(kind BitmapKind, rest ...field) []field {
		return append([]field{{"scope", s}, {"label_hash", be64(uint64(fxLabel))}, {"kind", []byte{byte(kind)}}}, rest...)
	}
	return map[string][]field{
		"NodeVersionKey(S, A, V, X)": version(s, fxA[:], fxValid, fxTx),
		"EdgeVersionKey(S, A, V, X)": version(s, fxA[:], fxValid, fxTx),
		"AdjacencyOutKey(S, A, E, V, X, B)": {{"scope", s}, {"from_id", fxA[:]}, {"edge_type_hash", be64(uint64(fxEdgeType))},
			{"valid_time_start", refInv(fxValid)}, {"tx_time_start", refInv(fxTx)}, {"to_id", fxB[:]}},
		"AdjacencyInKey(S, B, E, V, X, A)": {{"scope", s}, {"to_id", fxB[:]}, {"edge_type_hash", be64(uint64(fxEdgeType))},
			{"valid_time_start", refInv(fxValid)}, {"tx_time_start", refInv(fxTx)}, {"from_id", fxA[:]}},
		"ValidTimeIndexKey(S, V, X, A, edge)": {{"scope", s}, {"valid_time_start", refInv(fxValid)}, {"tx_time_start", refInv(fxTx)},
			{"logical_id", fxA[:]}, {"kind", []byte{0x01}}},
		"TxTimeIndexKey(S, X, V, A, edge)": {{"scope", s}, {"tx_time_start", refInv(fxTx)}, {"valid_time_start", refInv(fxValid)},
			{"logical_id", fxA[:]}, {"kind", []byte{0x01}}},
		"VectorKey(S, A, M, V, X)": {{"scope", s}, {"node_logical_id", fxA[:]}, {"embedding_model_id", be64(uint64(fxModel))},
			{"valid_time_start", refInv(fxValid)}, {"tx_time_start", refInv(fxTx)}},
		"SchemaKey(S, L, X)":               {{"scope", s}, {"label_hash", be64(uint64(fxLabel))}, {"tx_time_start", refInv(fxTx)}},
		"SystemScope.VectorModelKey(M, X)": {{"scope", z}, {"model_id", be64(uint64(fxModel))}, {"tx_time_start", refInv(fxTx)}},
		"SourceKey(S, A, X)":               source(refInv(fxTx)),
		"RedactionRecordKey(S, A)":         redaction(fxA[:]),
		"SpanKey(S, A, 256, 4096)":         {{"scope", s}, {"source_id", fxA[:]}, {"span_start", be64(256)}, {"span_end", be64(4096)}},
		"TraceKey(S, A)":                   {{"scope", s}, {"query_id", fxA[:]}},
		"JobKey(S, leased, 7, C, A)":       job(s, JobLeased, 7, fxCreated, fxA[:]),
		"BitmapAllocKey(S, L)":             bitmap(BitmapAlloc),
		"BitmapIDMapKey(S, L, R)":          bitmap(BitmapIDMap, field{"row_id", []byte{0x0a, 0x0b, 0x0c, 0x0d}}),
		"BitmapRevMapKey(S, L, A)":         bitmap(BitmapRevMap, field{"logical_id", fxA[:]}),
		"BitmapPostingKey(S, L, P, K)": bitmap(BitmapPosting, field{"property_hash", be64(uint64(fxProperty))},
			field{"bucket_hash", be64(uint64(fxBucket))}),
		"BitmapPropCounterKey(S, L, P)": bitmap(BitmapPropCounter, field{"property_hash", be64(uint64(fxProperty))}),

		// 1900 is negative: sign bit 0 in the ordered value, 1 once inverted;
		// the epoch is 0x80.. ordered and 0x7f.. inverted.
		"NodeVersionKey(S, A, Old, 0)": version(s, fxA[:], fxBefore, 0),
		"NodeVersionKey(S, A, MinTimestamp, MaxTimestamp)": {{"scope", s}, {"logical_id", fxA[:]},
			{"valid_time_start", bytes.Repeat([]byte{0xff}, 8)}, {"tx_time_start", make([]byte, 8)}},
		"NodeVersionKey(FF, Max, -1, 1)": {{"scope", ff}, {"logical_id", bytes.Repeat([]byte{0xff}, 16)},
			{"valid_time_start", []byte{0x80, 0, 0, 0, 0, 0, 0, 0}}, {"tx_time_start", []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}}},
		"ValidTimeIndexKey(S, V, X, A, node)": {{"scope", s}, {"valid_time_start", refInv(fxValid)}, {"tx_time_start", refInv(fxTx)},
			{"logical_id", fxA[:]}, {"kind", []byte{0x00}}},
		"EdgeTypeKey(S, E, X)":                {{"scope", s}, {"label_hash", be64(uint64(refEdgeTypeLabel(fxEdgeType)))}, {"tx_time_start", refInv(fxTx)}},
		"SourceKey(S, A, MinTimestamp)":       source(bytes.Repeat([]byte{0xff}, 8)),
		"SourceKey(S, A, MaxTimestamp-1)":     source([]byte{0, 0, 0, 0, 0, 0, 0, 1}), // next to the reserved slot
		"BlocklistKey(S, D)":                  redaction(blocklist[:]),
		"JobKey(S, queued, 0, Old, A)":        job(s, JobQueued, 0, fxBefore, fxA[:]),
		"SystemScope.JobKey(dead, 255, C, B)": job(z, JobDead, 255, fxCreated, fxB[:]),
	}
}

// Layouts() agrees with the constructors: every fixture's key has its
// layout's length, and each field of the layout holds, at its offset, the
// bytes written by hand for it. Every layout is covered by a fixture.
func TestLayoutsMatchConstructors(t *testing.T) {
	hand := handKeys()
	covered := make(map[string]bool)
	for _, fx := range keyFixtures() {
		k := fx.build()
		l, ok := layoutOf(k.Family(), fx.shape)
		if !ok {
			t.Errorf("%s: no layout %s %q", fx.call, k.Family(), fx.shape)
			continue
		}
		covered[k.Family().String()+"/"+l.Shape] = true
		if k.Len() != l.Len() {
			t.Errorf("%s: %d bytes, layout says %d", fx.call, k.Len(), l.Len())
		}
		fields, ok := hand[fx.call]
		if !ok {
			continue // the hash fixtures: pinned by the golden file alone
		}
		if len(fields) != len(l.Fields) {
			t.Errorf("%s: %d fields by hand, layout has %d", fx.call, len(fields), len(l.Fields))
			continue
		}
		b, off := k.Bytes(), 0
		for i, f := range l.Fields {
			want := fields[i]
			if f.Name != want.name || f.Width != len(want.b) {
				t.Errorf("%s: layout field %d is %s (%d bytes), want %s (%d bytes)", fx.call, i, f.Name, f.Width, want.name, len(want.b))
				break
			}
			if got := b[off : off+f.Width]; !bytes.Equal(got, want.b) {
				t.Errorf("%s: %s at offset %d = %x, want %x", fx.call, f.Name, off, got, want.b)
			}
			if enc := timeEncoding(f.Name); enc != "" && !strings.Contains(f.Encoding, enc) {
				t.Errorf("layout %s: field %s is documented as %q, want %s", l.Family, f.Name, f.Encoding, enc)
			}
			off += f.Width
		}
	}
	for _, l := range Layouts() {
		if !covered[l.Family.String()+"/"+l.Shape] {
			t.Errorf("layout %s %q has no key fixture", l.Family, l.Shape)
		}
	}
	if len(hand) != len(keyFixtures())-3 {
		t.Errorf("%d fixtures written by hand; every fixture but the 3 hash ones should be", len(hand))
	}
}

// timeEncoding is the encoding the spec gives a timestamp field: the
// version times iterate latest first, job creation times FIFO.
func timeEncoding(name string) string {
	switch {
	case strings.HasSuffix(name, "_time_start"):
		return "inverted"
	case name == "created_at":
		return "ascending"
	}
	return ""
}

// The key length constants agree with the layouts.
func TestLayoutLengths(t *testing.T) {
	want := map[string]int{
		"node_versions/": VersionKeyLen, "edge_versions/": VersionKeyLen,
		"adjacency_out/": AdjacencyKeyLen, "adjacency_in/": AdjacencyKeyLen,
		"valid_time_index/": TemporalIndexKeyLen, "tx_time_index/": TemporalIndexKeyLen,
		"vectors/": VectorKeyLen, "schema/": SchemaKeyLen, "schema/vector model registry": SchemaKeyLen,
		"sources/": SourceKeyLen, "sources/redaction record / blocklist": SourceKeyLen,
		"spans/": SpanKeyLen, "traces/": TraceKeyLen, "jobs/": JobKeyLen,
		"bitmap_index/alloc": BitmapAllocKeyLen, "bitmap_index/id_map": BitmapIDMapKeyLen,
		"bitmap_index/rev_map": BitmapRevMapKeyLen, "bitmap_index/posting": BitmapPostingKeyLen,
		"bitmap_index/prop_counter": BitmapPropCounterKeyLen,
	}
	layouts := Layouts()
	if len(layouts) != len(want) {
		t.Errorf("%d layouts, want %d", len(layouts), len(want))
	}
	for _, l := range layouts {
		name := l.Family.String() + "/" + l.Shape
		if n, ok := want[name]; !ok || l.Len() != n || l.Len() > MaxKeyLen {
			t.Errorf("layout %s: %d bytes, want %d", name, l.Len(), n)
		}
	}
}

// docs/key-layout.md is generated from the code and must not drift from it.
func TestLayoutDocFile(t *testing.T) {
	const path = "../../docs/key-layout.md"
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run `make docs` to generate it", err)
	}
	if line, g, w := firstDiff(string(got), LayoutDoc()); line > 0 {
		t.Fatalf("docs/key-layout.md differs from storage.LayoutDoc() at line %d:\n file: %s\n code: %s\nRun `make docs` (go run ./cmd/telha debug layout > docs/key-layout.md) and commit the result.", line, g, w)
	}
}

// The doc counts 13 families (the spec's prose says a stale 12) and has a
// section for every layout.
func TestLayoutDocContent(t *testing.T) {
	doc := LayoutDoc()
	if !strings.Contains(doc, "There are 13 column families:") {
		t.Errorf("the layout doc does not say there are 13 column families")
	}
	for _, cf := range Families() {
		if !strings.Contains(doc, "`"+cf.String()+"`") {
			t.Errorf("the layout doc does not list %s", cf)
		}
	}
	if n := strings.Count(doc, "\n## "); n != len(Layouts()) {
		t.Errorf("the layout doc has %d sections, want one per layout (%d)", n, len(Layouts()))
	}
}
