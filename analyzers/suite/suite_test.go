package suite_test

import (
	"testing"

	"golang.org/x/tools/go/analysis"

	"telha.dev/analyzers/suite"
)

func TestAnalyzers(t *testing.T) {
	if err := analysis.Validate(suite.Analyzers); err != nil {
		t.Fatal(err)
	}
	names := make(map[string]bool)
	for _, a := range suite.Analyzers {
		names[a.Name] = true
	}
	for _, name := range []string{"rawiter", "bytekey", "systemscope", "capability", "scopesource"} {
		if !names[name] {
			t.Errorf("suite lacks %s", name)
		}
	}
	if len(suite.Analyzers) != 5 || len(names) != 5 {
		t.Errorf("suite has %d analyzers with %d distinct names, want 5 distinct", len(suite.Analyzers), len(names))
	}
}
