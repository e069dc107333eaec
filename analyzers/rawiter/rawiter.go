package rawiter

import (
	_ "embed"
	"go/ast"
	"go/token"
	"go/types"

	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/refs"
	"telha.dev/analyzers/internal/rule"
)

//go:embed doc.go
var doc string

// advice is what to use instead of a binding.
const advice = "use the storage.Engine Scan API with a storage.ScanRange"

// Analyzer reports raw engine bindings and iterators outside the key
// authority.
var Analyzer = rule.New("rawiter", doc, run, runNative)

// bindings matches the declarations of the binding packages. It covers
// the uses in files that import a binding: the import is their one
// finding, and everything such a file does with the binding follows from
// it.
type bindings struct {
	p         *rule.Pass
	importing map[*token.File]bool // the files that import a binding
}

func (b bindings) Covers(id *ast.Ident) bool { return b.importing[b.p.Fset.File(id.Pos())] }

func (b bindings) Match(obj types.Object) bool {
	return obj.Pkg() != nil && b.p.Config.IsBinding(obj.Pkg().Path())
}

func (bindings) Describe(types.Object) (what, instead string) {
	return "raw engine binding", advice
}

func run(p *rule.Pass) {
	b := bindings{p: p, importing: make(map[*token.File]bool)}
	for _, file := range p.Files {
		for _, imp := range file.Imports {
			path := p.TypesInfo.PkgNameOf(imp).Imported().Path()
			if p.Config.IsBinding(path) {
				p.Reportf(imp, advice, "import of raw engine binding %q", path)
				b.importing[p.Fset.File(file.Pos())] = true
			}
		}
	}
	refs.Check(p, b)
}

// runNative reports what reaches a binding outside the type system.
func runNative(p *rule.Pass) {
	for _, link := range native.Linknames(native.Files(p.Fset, p.Files)) {
		if p.Config.IsBinding(link.Pkg) {
			p.Reportf(rule.At(link.Pos), advice, "%s reaches into raw engine binding %s", link.What(), link.Pkg)
		}
	}
	checkCgo(p, native.Files(p.Fset, p.Files), native.SourceFiles(p.Pass))
}
