package storage

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// decoderNames are the decoders errors_test.go and the benchmarks run.
func decoderNames() []string {
	var out []string
	for _, d := range decoders {
		out = append(out, d.name)
	}
	return out
}

// The layout table covers the package's exported surface: every key
// constructor (or it is a derived one of the tests), whose body is its
// setter's function form; every setter; every decoder, which Decode
// dispatches to and the tests run; every range constructor (or it is a
// special one of the tests); and every constructor and scan takes the
// arguments its layout's fields say.
func TestLayoutTableComplete(t *testing.T) {
	var derived []string
	for _, d := range derivedKeys {
		derived = append(derived, funcName(d.fn))
	}
	for _, p := range tableProblems(packageAPI(t), layouts, derived, specialRanges, decoderNames()) {
		t.Error(p)
	}
}

// The completeness check catches each kind of omission: a layout's key
// constructor, a scan, a decoder the tests do not run, a whole layout.
func TestLayoutTableCatchesOmissions(t *testing.T) {
	a := packageAPI(t)
	var derived []string
	for _, d := range derivedKeys {
		derived = append(derived, funcName(d.fn))
	}
	// without returns a copy of the table after edit, which is handed the
	// index of the first layout of family cf.
	without := func(cf ColumnFamily, edit func(ls []Layout, i int) []Layout) []Layout {
		ls := make([]Layout, len(layouts))
		for i, l := range layouts {
			l.keys, l.scans = slices.Clone(l.keys), slices.Clone(l.scans)
			ls[i] = l
		}
		return edit(ls, slices.IndexFunc(ls, func(l Layout) bool { return l.Family == cf }))
	}
	for _, tt := range []struct {
		name     string
		table    []Layout
		derived  []string
		special  []string
		decoders []string
		want     string
	}{
		{"a key constructor", without(Traces, func(ls []Layout, i int) []Layout { ls[i].keys = nil; return ls }), derived, specialRanges, decoderNames(),
			"TraceKey: key constructor missing from the layout table"},
		{"a scan", without(NodeVersions, func(ls []Layout, i int) []Layout { ls[i].scans = nil; return ls }), derived, specialRanges, decoderNames(),
			"NodeHistory: range constructor missing from the layout table"},
		{"a whole family", without(Traces, func(ls []Layout, _ int) []Layout {
			return slices.DeleteFunc(ls, func(l Layout) bool { return l.Family == Traces })
		}), derived, specialRanges, decoderNames(),
			"family traces: no layout in the table"},
		{"a derived constructor", layouts, derived[1:], specialRanges, decoderNames(),
			"EdgeTypeKey: key constructor missing from the layout table"},
		{"a special range", layouts, derived, specialRanges[1:], decoderNames(),
			"TenantAll: range constructor missing from the layout table"},
		{"a decoder", layouts, derived, specialRanges, decoderNames()[1:],
			"DecodeNodeVersion: decoder missing from the decoders the tests run"},
		{"a scan with the wrong prefix", without(AdjacencyOut, func(ls []Layout, i int) []Layout { ls[i].scans[1].Prefix = 1; return ls }), derived, specialRanges, decoderNames(),
			"AdjacencyOutTypeRange: 2 arguments after the scope"},
	} {
		problems := tableProblems(a, tt.table, tt.derived, tt.special, tt.decoders)
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, tt.want) }) {
			t.Errorf("without %s: problems %q, want one starting %q", tt.name, problems, tt.want)
		}
	}
}

// Every key fixture writes the bytes the layout table describes, by the
// reference encodings, or is refused where the table says so.
func TestFixturesMatchTable(t *testing.T) {
	for _, fx := range keyFixtures() {
		k := fx.build()
		want, ok := fx.shape.want(fx.args)
		if k.Valid() != ok || ok && !bytes.Equal(k.Bytes(), want) {
			t.Errorf("%s = %x (valid %v), want %x (valid %v)", fx.call, k.Bytes(), k.Valid(), want, ok)
		}
	}
}

// A field's name promises its encoding: *_time_start fields iterate latest
// first (inverted), created_at first in, first out (ordered).
func TestLayoutFieldNames(t *testing.T) {
	for _, l := range layouts {
		for _, f := range l.Fields {
			switch {
			case strings.HasSuffix(f.Name, "_time_start") && f.Kind != FieldInvertedTime,
				f.Name == "created_at" && f.Kind != FieldOrderedTime:
				t.Errorf("layout %s: field %s is of kind %d", l.title(), f.Name, f.Kind)
			}
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

// The doc counts the families and has a section for every layout, then
// the decisions.
func TestLayoutDocContent(t *testing.T) {
	doc := LayoutDoc()
	if n := len(Families()); !strings.Contains(doc, fmt.Sprintf("There are %d column families:", n)) {
		t.Errorf("the layout doc does not say there are %d column families", n)
	}
	for _, cf := range Families() {
		if !strings.Contains(doc, "`"+cf.String()+"`") {
			t.Errorf("the layout doc does not list %s", cf)
		}
	}
	if n := strings.Count(doc, "\n## "); n != len(Layouts())+1 || !strings.Contains(doc, "\n## Decisions\n") {
		t.Errorf("the layout doc has %d sections, want one per layout (%d) and the decisions", n, len(Layouts()))
	}
}
