package systemscope_test

import (
	"testing"

	"telha.dev/analyzers/internal/telhatest"
	"telha.dev/analyzers/systemscope"
)

func Test(t *testing.T) {
	telhatest.Run(t, systemscope.Analyzer, "telha.dev/jobs/...")
}
