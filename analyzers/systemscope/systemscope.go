package systemscope

import (
	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"telha.dev/analyzers/internal/authority"
	"telha.dev/analyzers/internal/marks"
	"telha.dev/analyzers/internal/refs"
)

// Analyzer reports references to restricted declarations of the key
// authority outside it, except those of kind "rawbytes".
var Analyzer = &analysis.Analyzer{
	Name:     "systemscope",
	Doc:      Doc,
	Requires: []*analysis.Analyzer{inspect.Analyzer, marks.Analyzer},
	Run:      run,
}

var tree *authority.Paths

func init() {
	tree = authority.TreeFlag(&Analyzer.Flags)
}

func run(pass *analysis.Pass) (any, error) {
	if tree.Contains(pass.Pkg.Path()) {
		return nil, nil
	}
	restricted := pass.ResultOf[marks.Analyzer].(*marks.Set).Select(*tree, func(d marks.Directive) bool {
		return d.Verb == marks.Restricted && d.Kind != marks.RawBytes
	})
	if restricted == nil {
		return nil, nil
	}
	refs.Check(pass, pass.ResultOf[inspect.Analyzer].(*inspector.Inspector), restricted)
	return nil, nil
}
