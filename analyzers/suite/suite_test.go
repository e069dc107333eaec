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
	for _, name := range []string{"rawiter", "bytekey", "systemscope"} {
		if !names[name] {
			t.Errorf("suite lacks %s", name)
		}
	}
	if len(suite.Analyzers) != 3 || len(names) != 3 {
		t.Errorf("suite has %d analyzers with %d distinct names, want 3 distinct", len(suite.Analyzers), len(names))
	}
}
