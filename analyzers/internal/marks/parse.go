package marks

import (
	"fmt"
	"go/ast"
	"slices"
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
		case Opaque, Credential:
			directives = append(directives, Directive{Verb: verb, Advice: strings.TrimSpace(rest)})
		case FacadeVerb:
			return nil, fmt.Errorf("//telha:facade marks a package: put it at the end of the package doc comment")
		default:
			return nil, fmt.Errorf("unknown mark //telha:%s (want restricted, opaque, credential or facade)", verb)
		}
	}
	return directives, nil
}

// parseFacade returns the facade mark among the directive lines that end
// a package doc comment, or nil if there is none:
//
//	//telha:facade for=<path>[,<path>...] [reexport=<module>[,<module>...]]
//
// Each path of for= must be a package tree of a module that
// authority.conf places, and each reexport= a module it places.
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
		fields := strings.Fields(rest)
		if facade != nil || len(fields) == 0 || len(fields) > 2 {
			return nil, fmt.Errorf("want one //telha:facade for=<path>[,<path>...] [reexport=<module>[,<module>...]] or //telha:facade tests, got %q", c.Text)
		}
		facade = new(Facade)
		if len(fields) == 1 && fields[0] == "tests" {
			facade.Tests = true
			continue
		}
		for i, f := range fields {
			key, list, _ := strings.Cut(f, "=")
			var err error
			switch {
			case i == 0 && key == "for":
				facade.For, err = paths(list, false)
			case i == 1 && key == "reexport":
				facade.Reexport, err = paths(list, true)
			default:
				err = fmt.Errorf("want one //telha:facade for=<path>[,<path>...] [reexport=<module>[,<module>...]]")
			}
			if err != nil {
				return nil, fmt.Errorf("%q: %w", c.Text, err)
			}
		}
	}
	return facade, nil
}

// paths parses a comma-separated list of import paths that must lie in
// modules authority.conf places, or with modules, be such modules.
func paths(list string, modules bool) ([]string, error) {
	var out []string
	for p := range strings.SplitSeq(list, ",") {
		if p == "" || strings.HasSuffix(p, "/") || strings.Contains(p, "...") {
			return nil, fmt.Errorf("want a comma-separated list of import paths, got %q", list)
		}
		m, ok := authority.Default.ModuleOf(p)
		switch {
		case !ok:
			return nil, fmt.Errorf("%s is in no module of authority.conf", p)
		case modules && m.Path != p:
			return nil, fmt.Errorf("%s is not a module of authority.conf", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// Admits reports whether the facade admits an importer: a package of a
// tree of For, by its module and its directory in the facade's repository
// (authority.Config.Holds), never by a prefix of its import path.
func (f *Facade) Admits(importer authority.Package) bool {
	if f.Tests {
		return false // the files decide (AdmitsFile)
	}
	for _, p := range f.For {
		if authority.Default.Holds(p, true, importer, f.Root) {
			return true
		}
	}
	return false
}

// Reexports reports whether the facade lets the packages it admits hand
// what they get from it on to packages of the module modulePath.
func (f *Facade) Reexports(modulePath string) bool {
	return slices.Contains(f.Reexport, modulePath)
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
