package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"telha.dev/analyzers/suite"
)

// TestVetSuiteMatchesGoVet keeps vetAnalyzers equal to the suite of the
// toolchain's own cmd/vet, so that replacing go vet by telhavet never checks
// less, also after a toolchain upgrade. Analyzer names differ from package
// names (composites, copylocks), so the two files' imports are compared.
func TestVetSuiteMatchesGoVet(t *testing.T) {
	goroot, err := goCmd(".", "env", "GOROOT")
	if err != nil {
		t.Fatal(err)
	}
	vet := filepath.Join(strings.TrimSpace(goroot), "src", "cmd", "vet", "main.go")
	if got, want := vetPasses(t, "bundle.go"), vetPasses(t, vet); !slices.Equal(got, want) {
		t.Errorf("bundle.go imports the passes %q\n%s imports %q", got, vet, want)
	}
}

// vetPasses returns the sorted go/analysis passes that a Go file imports.
func vetPasses(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var passes []string
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			t.Fatal(err)
		}
		if name, ok := strings.CutPrefix(p, "golang.org/x/tools/go/analysis/passes/"); ok {
			passes = append(passes, name)
		}
	}
	slices.Sort(passes)
	return passes
}

func TestBundle(t *testing.T) {
	all := bundle()
	if err := analysis.Validate(all); err != nil {
		t.Fatal(err)
	}
	byName := make(map[string]*analysis.Analyzer)
	for _, a := range all {
		if byName[a.Name] != nil {
			t.Errorf("two analyzers named %s", a.Name)
		}
		byName[a.Name] = a
	}
	// The Telha rules run as they are: a wrapper could filter their findings.
	for _, a := range suite.Analyzers {
		if byName[a.Name] != a {
			t.Errorf("Telha rule %s is missing from the bundle or wrapped", a.Name)
		}
	}
	// Staticcheck's defaults: its opinionated style checks stay off.
	for _, name := range []string{"ST1000", "ST1003", "ST1016", "ST1020", "ST1021", "ST1022", "ST1023", "SA9003"} {
		if byName[name] != nil {
			t.Errorf("non-default staticcheck check %s is in the bundle", name)
		}
	}
	for _, name := range []string{"SA1000", "S1000", "ST1005", "U1000"} {
		if byName[name] == nil {
			t.Errorf("default staticcheck check %s is missing from the bundle", name)
		}
	}
}
