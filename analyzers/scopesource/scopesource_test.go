package scopesource_test

import (
	"testing"

	"telha.dev/analyzers/internal/telhatest"
	"telha.dev/analyzers/scopesource"
)

func Test(t *testing.T) {
	telhatest.Configure(t, `
serves telha.dev/graph/server
grant telha.dev/graph/server/auth scope turns the test's tokens into principals
`)
	telhatest.Run(t, scopesource.Analyzer, "telha.dev/graph/...")
}
