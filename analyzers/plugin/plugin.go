// Package plugin registers the Telha rules with golangci-lint v2 as the
// module plugin "telhavet", so that editors running golangci-lint show the
// same findings as the telhavet gate. golangci-lint module plugins are linked
// into a custom golangci-lint binary (see tools/golangci), not loaded at run
// time: importing this package for its side effect is the whole integration.
package plugin

import (
	"fmt"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/suite"
)

// Name is the linter name to enable in .golangci.yml.
const Name = "telhavet"

func init() {
	register.Plugin(Name, New)
}

// Settings is the plugin's section of .golangci.yml. It is empty on purpose:
// the editor must report exactly what the gate reports, so the rules run
// with the same defaults as in telhavet, and any setting is an error rather
// than silently ignored.
type Settings struct{}

// New returns the plugin for the given settings from .golangci.yml.
func New(settings any) (register.LinterPlugin, error) {
	if _, err := register.DecodeSettings[Settings](settings); err != nil {
		return nil, fmt.Errorf("%s settings: %w", Name, err)
	}
	if authority.Err != nil {
		return nil, fmt.Errorf("%s: %w", Name, authority.Err)
	}
	return telhaPlugin{}, nil
}

type telhaPlugin struct{}

// BuildAnalyzers returns the Telha rules.
func (telhaPlugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return suite.Analyzers, nil
}

// GetLoadMode asks for type information: the rules match on types, not on
// names, and learn the restricted surface from facts about core/storage.
func (telhaPlugin) GetLoadMode() string {
	return register.LoadModeTypesInfo
}
