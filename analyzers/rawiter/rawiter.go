package rawiter

import (
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"telha.dev/analyzers/internal/authority"
	"telha.dev/analyzers/internal/refs"
)

// DefaultBindings is the default list of raw engine binding packages.
const DefaultBindings = "github.com/linxGnu/grocksdb"

const advice = "use the storage.Engine Scan API with a storage.ScanRange"

// Analyzer reports raw engine bindings and iterators outside the key
// authority.
var Analyzer = &analysis.Analyzer{
	Name:     "rawiter",
	Doc:      Doc,
	Requires: []*analysis.Analyzer{inspect.Analyzer},
	Run:      run,
}

var (
	tree     *authority.Paths
	bindings = authority.Paths{DefaultBindings}
)

func init() {
	tree = authority.TreeFlag(&Analyzer.Flags)
	Analyzer.Flags.Var(&bindings, "bindings", "comma-separated import paths of the raw engine binding packages")
}

// rule matches the declarations of the binding packages.
type rule struct {
	bindings authority.Paths
}

func (r rule) Match(obj types.Object) bool {
	return obj.Pkg() != nil && r.bindings.Contains(obj.Pkg().Path())
}

func (rule) Describe(types.Object) (what, instead string) {
	return "raw engine binding", advice
}

func run(pass *analysis.Pass) (any, error) {
	if tree.Contains(pass.Pkg.Path()) || !reaches(pass.Pkg, bindings) {
		return nil, nil
	}
	for _, file := range pass.Files {
		for _, imp := range file.Imports {
			path := pass.TypesInfo.PkgNameOf(imp).Imported().Path()
			if bindings.Contains(path) {
				pass.ReportRangef(imp, "import of raw engine binding %q outside the key authority; %s", path, advice)
			}
		}
	}
	refs.Check(pass, pass.ResultOf[inspect.Analyzer].(*inspector.Inspector), rule{bindings: bindings})
	return nil, nil
}

// reaches reports whether pkg or a package it imports, directly or not, is
// a binding package: otherwise no binding type can appear in pkg.
func reaches(pkg *types.Package, bindings authority.Paths) bool {
	seen := map[*types.Package]bool{pkg: true}
	stack := []*types.Package{pkg}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if bindings.Contains(p.Path()) {
			return true
		}
		for _, imp := range p.Imports() {
			if !seen[imp] {
				seen[imp] = true
				stack = append(stack, imp)
			}
		}
	}
	return false
}
