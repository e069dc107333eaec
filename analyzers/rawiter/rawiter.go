package rawiter

import (
	_ "embed"
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

// bindings matches the declarations of the binding packages.
type bindings struct{ p *rule.Pass }

func (b bindings) Match(obj types.Object) bool {
	return obj.Pkg() != nil && b.p.Config.IsBinding(obj.Pkg().Path())
}

func (bindings) Describe(types.Object) (what, instead string) {
	return "raw engine binding", advice
}

func run(p *rule.Pass) {
	for _, file := range p.Files {
		for _, imp := range file.Imports {
			path := p.TypesInfo.PkgNameOf(imp).Imported().Path()
			if p.Config.IsBinding(path) {
				p.Reportf(imp, advice, "import of raw engine binding %q", path)
			}
		}
	}
	refs.Check(p, bindings{p})
}

// runNative reports what reaches a binding outside the type system.
func runNative(p *rule.Pass) {
	for _, link := range native.Linknames(p.TypesInfo, p.Files) {
		if p.Config.IsBinding(link.Pkg) {
			p.Reportf(rule.At(link.Pos), advice, "%s reaches into raw engine binding %s", link.What(), link.Pkg)
		}
	}
	checkCgo(p, native.SourceFiles(p.Pass))
}
