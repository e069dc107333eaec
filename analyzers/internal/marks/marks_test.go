package marks_test

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"telha.dev/analyzers/internal/marks"
	"telha.dev/analyzers/internal/telhatest"
)

func Test(t *testing.T) {
	dir := telhatest.Workspace(t, "testdata")
	analysistest.Run(t, dir, marks.Analyzer, "telha.dev/core/storage/marked/...", "telha.dev/graph/unmarked")
}

// TestMalformed checks that a malformed mark in the authority makes the
// analysis fail, naming the mark, rather than lift a restriction silently.
func TestMalformed(t *testing.T) {
	dir := telhatest.Workspace(t, "testdata")
	for pkg, want := range map[string]string{
		"badverb":     "unknown mark //telha:restricetd",
		"badfacade":   "want one //telha:facade for=",
		"misplaced":   "//telha:facade marks a package",
		"nomodule":    "telha.dev/nowhere is in no module of authority.conf",
		"badreexport": "telha.dev/vector/sub is not a module of authority.conf",
		"twofacades":  "want one //telha:facade for=",
	} {
		rec := new(recorder)
		analysistest.Run(rec, dir, marks.Analyzer, "telha.dev/core/storage/"+pkg)
		if !strings.Contains(rec.String(), want) {
			t.Errorf("%s: analysis errors %q, want one containing %q", pkg, rec.String(), want)
		}
	}
}

// recorder is an analysistest.Testing that records the errors.
type recorder struct{ strings.Builder }

func (r *recorder) Errorf(format string, args ...any) {
	fmt.Fprintf(&r.Builder, format+"\n", args...)
}
