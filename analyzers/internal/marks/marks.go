// Package marks reads the marks that the key authority puts on its
// declarations and carries them to the packages that use them, as analysis
// facts.
//
// A mark is a directive line at the end of a declaration's doc comment, in
// Go directive style (no space after the slashes):
//
//	//telha:restricted <kind> <advice>
//	//telha:opaque <advice>
//
// A restricted declaration may not be referenced outside the authority tree;
// the kind says which rule enforces it ("rawbytes" for bytekey, any other
// kind, such as "system", for systemscope). An opaque type may not be
// constructed outside the authority tree except as a zero value. The advice
// says what to use instead and ends up in the diagnostic.
//
// Marks are read on package-level types, funcs, methods, vars and consts
// (for a grouped declaration, on the spec, or else on the group), and on the
// fields and interface methods of package-level struct and interface types.
// Lines with another //telha: verb are ignored.
package marks

import (
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"

	"telha.dev/analyzers/internal/authority"
)

// Directive verbs.
const (
	Restricted = "restricted"
	Opaque     = "opaque"
)

// RawBytes is the kind of the restricted declarations that take or expose
// raw key bytes; bytekey enforces it, systemscope every other kind.
const RawBytes = "rawbytes"

// A Directive is one //telha: line.
type Directive struct {
	Verb   string // Restricted or Opaque
	Kind   string // the kind of a Restricted directive
	Advice string // what to use instead
}

// What names what the directive makes of a declaration, for messages:
// "opaque", "system-restricted".
func (d Directive) What() string {
	switch {
	case d.Verb == Opaque:
		return "opaque"
	case d.Kind == "":
		return "restricted"
	}
	return d.Kind + "-restricted"
}

// Instead returns the advice, or a generic one when the mark gave none.
func (d Directive) Instead() string {
	if d.Advice == "" {
		return "use the exported API of the key authority"
	}
	return d.Advice
}

// Mark is the fact that a declaration of the authority carries directives.
type Mark struct {
	Directives []Directive
}

// AFact marks Mark as an analysis fact.
func (*Mark) AFact() {}

func (m *Mark) String() string {
	var b strings.Builder
	for i, d := range m.Directives {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.Verb)
		if d.Kind != "" {
			b.WriteString(" " + d.Kind)
		}
		fmt.Fprintf(&b, " %q", d.Advice)
	}
	return b.String()
}

// Analyzer exports a Mark fact for every marked declaration and returns the
// marks visible to the package as a *Set. It reports nothing.
var Analyzer = &analysis.Analyzer{
	Name:       "telhamarks",
	Doc:        "reads the //telha: marks of declarations for the Telha rules",
	Run:        run,
	FactTypes:  []analysis.Fact{new(Mark)},
	ResultType: reflect.TypeFor[*Set](),
}

// A Set holds the marks of the declarations a package can see: its own and
// those of its dependencies.
type Set struct {
	facts []analysis.ObjectFact
}

// Index maps marked objects to the one directive a rule enforces on each.
type Index map[types.Object]Directive

// Match reports whether obj is in the index.
func (ix Index) Match(obj types.Object) bool {
	_, ok := ix[obj]
	return ok
}

// Describe returns what the directive on obj makes of it and the advice.
// With Match it makes an Index a rule for package refs.
func (ix Index) Describe(obj types.Object) (what, advice string) {
	d := ix[obj]
	return d.What(), d.Instead()
}

// Select returns the directives accepted by keep on the declarations of the
// authority tree; it is nil if there are none.
func (s *Set) Select(tree authority.Paths, keep func(Directive) bool) Index {
	var ix Index
	for _, f := range s.facts {
		if !tree.Contains(f.Object.Pkg().Path()) {
			continue
		}
		for _, d := range f.Fact.(*Mark).Directives {
			if !keep(d) {
				continue
			}
			if ix == nil {
				ix = make(Index)
			}
			ix[f.Object] = d
		}
	}
	return ix
}

func run(pass *analysis.Pass) (any, error) {
	for _, file := range pass.Files {
		for _, decl := range file.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				export(pass, decl.Name, decl.Doc)
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					exportSpec(pass, spec, decl.Doc)
				}
			}
		}
	}
	return &Set{facts: pass.AllObjectFacts()}, nil
}

// exportSpec exports the marks of spec, whose group has the doc comment
// groupDoc.
func exportSpec(pass *analysis.Pass, spec ast.Spec, groupDoc *ast.CommentGroup) {
	switch spec := spec.(type) {
	case *ast.ValueSpec:
		doc := specDoc(spec.Doc, groupDoc)
		for _, name := range spec.Names {
			export(pass, name, doc)
		}
	case *ast.TypeSpec:
		export(pass, spec.Name, specDoc(spec.Doc, groupDoc))
		switch t := spec.Type.(type) {
		case *ast.StructType:
			exportFields(pass, t.Fields)
		case *ast.InterfaceType:
			exportFields(pass, t.Methods)
		}
	}
}

// specDoc returns the doc comment whose marks apply to a spec: its own if it
// has marks, else that of its group.
func specDoc(doc, groupDoc *ast.CommentGroup) *ast.CommentGroup {
	if len(parse(doc)) > 0 {
		return doc
	}
	return groupDoc
}

func exportFields(pass *analysis.Pass, fields *ast.FieldList) {
	for _, field := range fields.List {
		for _, name := range field.Names {
			export(pass, name, field.Doc)
		}
	}
}

// export exports the marks in doc for the object that name declares.
func export(pass *analysis.Pass, name *ast.Ident, doc *ast.CommentGroup) {
	directives := parse(doc)
	if len(directives) == 0 {
		return
	}
	if obj := pass.TypesInfo.Defs[name]; obj != nil {
		pass.ExportObjectFact(obj, &Mark{Directives: directives})
	}
}

// parse returns the //telha: directives among the directive lines that end
// doc, in order.
func parse(doc *ast.CommentGroup) []Directive {
	if doc == nil {
		return nil
	}
	start := len(doc.List)
	for start > 0 && isDirective(doc.List[start-1].Text) {
		start--
	}
	var directives []Directive
	for _, c := range doc.List[start:] {
		rest, ok := strings.CutPrefix(c.Text, "//telha:")
		if !ok {
			continue
		}
		verb, rest, _ := strings.Cut(rest, " ")
		switch verb {
		case Restricted:
			kind, advice, _ := strings.Cut(strings.TrimSpace(rest), " ")
			directives = append(directives, Directive{Verb: Restricted, Kind: kind, Advice: strings.TrimSpace(advice)})
		case Opaque:
			directives = append(directives, Directive{Verb: Opaque, Advice: strings.TrimSpace(rest)})
		}
	}
	return directives
}

// isDirective reports whether the comment text is a directive line:
// "//" followed at once by a lower-case word, a colon and more text, as
// go/ast defines it.
func isDirective(text string) bool {
	body, ok := strings.CutPrefix(text, "//")
	if !ok {
		return false // a /* */ comment
	}
	word, rest, ok := strings.Cut(body, ":")
	if !ok || word == "" || rest == "" {
		return false
	}
	for _, r := range word {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}
