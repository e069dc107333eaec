// Package telhatest runs a Telha rule over its testdata with analysistest.
//
// Each rule's testdata/src holds its own cases and links (github.com and
// telha.dev/core) to the stubs shared by all rules in analyzers/testdata/src:
// the engine binding and the authority tree with its marks.
package telhatest

import (
	"slices"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
)

// Tree lists the packages of the stub authority tree. Their files, tests
// included, hold no expectations: nothing in the tree may be reported.
var Tree = []string{
	"telha.dev/core/storage",
	"telha.dev/core/storage/rocksdb",
	"telha.dev/core/storage/system",
}

// Run runs a over the stub authority tree and the packages matched by
// cases in the testdata of the calling test, and checks the expectations.
func Run(t *testing.T, a *analysis.Analyzer, cases string) {
	t.Helper()
	analysistest.Run(t, analysistest.TestData(), a, slices.Concat(Tree, []string{cases})...)
}
