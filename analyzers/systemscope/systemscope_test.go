package systemscope_test

import (
	"testing"

	"telha.dev/analyzers/internal/telhatest"
	"telha.dev/analyzers/systemscope"
)

func Test(t *testing.T) {
	telhatest.Run(t, systemscope.Analyzer,
		"telha.dev/jobs/...", "telha.dev/temporal/...", "telha.dev/vector/...", "telha.dev/graph/...",
		// Look-alikes of the authority, two of them where ./... does not look.
		"telha.dev/core/storage/contrib", "telha.dev/core/storagex", "telha.dev/core/storage_test",
		"telha.dev/core/storage/testdata/fake", "telha.dev/core/storage/_hidden")
}
