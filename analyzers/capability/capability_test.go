package capability_test

import (
	"testing"

	"telha.dev/analyzers/capability"
	"telha.dev/analyzers/internal/telhatest"
)

func Test(t *testing.T) {
	telhatest.Configure(t, `
grant telha.dev/vector/granted unsafe the test's kernels reinterpret float32 slices
grant telha.dev/vector/granted asm the test's kernels are in assembly
`)
	telhatest.Run(t, capability.Analyzer, "telha.dev/vector/...")
}
