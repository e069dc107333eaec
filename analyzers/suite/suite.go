// Package suite lists the Telha rules, for the telhavet binary and the
// golangci-lint plugin.
package suite

import (
	"golang.org/x/tools/go/analysis"

	"telha.dev/analyzers/bytekey"
	"telha.dev/analyzers/capability"
	"telha.dev/analyzers/rawiter"
	"telha.dev/analyzers/scopesource"
	"telha.dev/analyzers/systemscope"
)

// Analyzers are the Telha rules.
var Analyzers = []*analysis.Analyzer{rawiter.Analyzer, bytekey.Analyzer, systemscope.Analyzer, capability.Analyzer, scopesource.Analyzer}
