package bytekey_test

import (
	"testing"

	"telha.dev/analyzers/bytekey"
	"telha.dev/analyzers/internal/telhatest"
)

func Test(t *testing.T) {
	telhatest.Run(t, bytekey.Analyzer, "telha.dev/vector/...")
}
