package marks_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"telha.dev/analyzers/internal/marks"
)

func Test(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), marks.Analyzer, "a")
}
