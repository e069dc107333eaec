package plugin_test

import (
	"slices"
	"testing"

	"github.com/golangci/plugin-module-register/register"

	"telha.dev/analyzers/plugin"
	"telha.dev/analyzers/suite"
)

func TestRegistered(t *testing.T) {
	newPlugin, err := register.GetPlugin(plugin.Name)
	if err != nil {
		t.Fatal(err)
	}
	// golangci-lint passes nil when .golangci.yml has no settings section.
	for _, settings := range []any{nil, map[string]any{}} {
		p, err := newPlugin(settings)
		if err != nil {
			t.Fatalf("New(%v): %v", settings, err)
		}
		if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
			t.Errorf("GetLoadMode() = %q, want %q", got, register.LoadModeTypesInfo)
		}
		analyzers, err := p.BuildAnalyzers()
		if err != nil {
			t.Fatalf("BuildAnalyzers: %v", err)
		}
		if !slices.Equal(analyzers, suite.Analyzers) {
			t.Errorf("BuildAnalyzers() = %v, want the Telha rules %v", analyzers, suite.Analyzers)
		}
	}
}

func TestUnknownSetting(t *testing.T) {
	if _, err := plugin.New(map[string]any{"exclude": "core"}); err == nil {
		t.Error("New accepted an unknown setting; want an error so that a typo cannot weaken the editor's checks")
	}
}
