package marks

import (
	"fmt"
	"go/ast"
	"strings"

	"golang.org/x/tools/go/analysis"

	"telha.dev/analyzers/authority"
)

// exportSpec exports the marks of spec, whose group has the doc comment
// groupDoc.
func exportSpec(pass *analysis.Pass, spec ast.Spec, groupDoc *ast.CommentGroup, fail func(ast.Node, error)) {
	switch spec := spec.(type) {
	case *ast.ValueSpec:
		doc := specDoc(spec.Doc, groupDoc)
		for _, name := range spec.Names {
			export(pass, name, doc, fail)
		}
	case *ast.TypeSpec:
		export(pass, spec.Name, specDoc(spec.Doc, groupDoc), fail)
		switch t := spec.Type.(type) {
		case *ast.StructType:
			exportFields(pass, t.Fields, fail)
		case *ast.InterfaceType:
			exportFields(pass, t.Methods, fail)
		}
	}
}

// specDoc returns the doc comment whose marks apply to a spec: its own if it
// has marks, else that of its group.
func specDoc(doc, groupDoc *ast.CommentGroup) *ast.CommentGroup {
	if hasMarks(doc) {
		return doc
	}
	return groupDoc
}

func exportFields(pass *analysis.Pass, fields *ast.FieldList, fail func(ast.Node, error)) {
	for _, field := range fields.List {
		for _, name := range field.Names {
			export(pass, name, field.Doc, fail)
		}
	}
}

// export exports the marks in doc for the object that name declares.
func export(pass *analysis.Pass, name *ast.Ident, doc *ast.CommentGroup, fail func(ast.Node, error)) {
	directives, err := parse(doc)
	if err != nil {
		fail(doc, err)
		return
	}
	if len(directives) == 0 {
		return
	}
	if obj := pass.TypesInfo.Defs[name]; obj != nil {
		pass.ExportObjectFact(obj, &Mark{Directives: directives})
	}
}

// hasMarks reports whether doc ends with //telha: directive lines.
func hasMarks(doc *ast.CommentGroup) bool {
	for _, c := range trailingDirectives(doc) {
		if strings.HasPrefix(c.Text, "//telha:") {
			return true
		}
	}
	return false
}

// parse returns the //telha: directives of a declaration among the
// directive lines that end doc, in order.
func parse(doc *ast.CommentGroup) ([]Directive, error) {
	var directives []Directive
	for _, c := range trailingDirectives(doc) {
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
		case FacadeVerb:
			return nil, fmt.Errorf("//telha:facade marks a package: put it at the end of the package doc comment")
		default:
			return nil, fmt.Errorf("unknown mark //telha:%s (want restricted, opaque or facade)", verb)
		}
	}
	return directives, nil
}

// parseFacade returns the facade mark among the directive lines that end
// a package doc comment, or nil if there is none.
func parseFacade(doc *ast.CommentGroup) (*Facade, error) {
	var facade *Facade
	for _, c := range trailingDirectives(doc) {
		rest, ok := strings.CutPrefix(c.Text, "//telha:")
		if !ok {
			continue
		}
		verb, rest, _ := strings.Cut(rest, " ")
		if verb != FacadeVerb {
			return nil, fmt.Errorf("//telha:%s on a package: only //telha:facade marks a package", verb)
		}
		list, ok := strings.CutPrefix(strings.TrimSpace(rest), "for=")
		if !ok || facade != nil {
			return nil, fmt.Errorf("want one //telha:facade for=<path>[,<path>...], got %q", c.Text)
		}
		facade = new(Facade)
		for p := range strings.SplitSeq(list, ",") {
			if p == "" || strings.ContainsAny(p, " \t") || strings.HasSuffix(p, "/") || strings.Contains(p, "...") {
				return nil, fmt.Errorf("%q: want a comma-separated list of import paths", c.Text)
			}
			facade.For = append(facade.For, p)
		}
	}
	return facade, nil
}

// Admits reports whether the facade admits an importer: a package whose
// home (its own path, or for an external test the package it tests) lies
// at or below a path of For, in a module whose path is that path or lies
// above it. The module condition keeps out a module of its own that is
// merely named below the path.
func (f *Facade) Admits(importer authority.Package) bool {
	if importer.Module == "" {
		return false
	}
	home := importer.Home()
	for _, p := range f.For {
		_, below := authority.Below(home, p)
		_, moduleAbove := authority.Below(p, importer.Module)
		if below && moduleAbove {
			return true
		}
	}
	return false
}

// trailingDirectives returns the directive lines that end doc.
func trailingDirectives(doc *ast.CommentGroup) []*ast.Comment {
	if doc == nil {
		return nil
	}
	start := len(doc.List)
	for start > 0 && isDirective(doc.List[start-1].Text) {
		start--
	}
	return doc.List[start:]
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
