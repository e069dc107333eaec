package rawiter_test

import (
	"testing"

	"telha.dev/analyzers/internal/telhatest"
	"telha.dev/analyzers/rawiter"
)

func Test(t *testing.T) {
	telhatest.Run(t, rawiter.Analyzer, "telha.dev/graph/...")
}
