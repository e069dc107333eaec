package systemscope

import (
	_ "embed"

	"golang.org/x/tools/go/analysis"

	"telha.dev/analyzers/internal/marks"
	"telha.dev/analyzers/internal/refs"
	"telha.dev/analyzers/internal/rule"
)

//go:embed doc.go
var doc string

// Analyzer reports references to restricted declarations of the key
// authority outside it, except those of kind "rawbytes", and imports of
// facades by packages they do not exist for.
var Analyzer = func() *analysis.Analyzer {
	a := rule.New("systemscope", doc, run, nil)
	a.FactTypes = []analysis.Fact{new(Reexport)}
	return a
}()

func run(p *rule.Pass) {
	checkFacades(p)
	checkEscapes(p)
	checkReexports(p)
	restricted := p.Marks.Select(func(d marks.Directive) bool {
		return d.Verb == marks.Restricted && d.Kind != marks.RawBytes
	})
	if restricted == nil {
		return
	}
	refs.Check(p, restricted)
	refs.CheckInterfaces(p, restricted, restricted.Funcs())
}

// checkFacades reports the imports of facades that do not admit the
// package.
func checkFacades(p *rule.Pass) {
	importer := marks.PackageOf(p.Pass)
	for _, file := range p.Files {
		for _, imp := range file.Imports {
			pkg := p.TypesInfo.PkgNameOf(imp).Imported()
			facade := p.Marks.FacadeOf(pkg)
			if facade == nil || facade.AdmitsFile(importer, p.Fset.File(file.Pos()).Name()) {
				continue
			}
			advice := "use the API of " + facade.Users() + ", or add a facade of the authority for this package"
			if facade.Tests {
				advice = "import it from a _test.go file"
			}
			p.Reportf(imp, advice, "import of facade %q, which exists for %s only,", pkg.Path(), facade.Users())
		}
	}
}
