package suite_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
		if names[a.Name] {
			t.Errorf("suite lists %s twice", a.Name)
		}
		names[a.Name] = true
	}
}

// rulePackages returns the rule packages under analyzers/: a directory
// with a doc.go (the rule's documentation) and a package-level Analyzer.
// The driver's inventory analyzer has no doc.go: it is not a rule.
func rulePackages(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^var Analyzer\b`)
	var rules []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "internal" || e.Name() == "testdata" {
			continue
		}
		dir := filepath.Join("..", e.Name())
		if _, err := os.Stat(filepath.Join(dir, "doc.go")); err != nil {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if decl.Match(src) {
				rules = append(rules, e.Name())
				break
			}
		}
	}
	return rules
}

// TestEveryRuleListed keeps suite.Analyzers the one list of the rules:
// every rule package under analyzers/ is in it, under its package's name,
// and nothing else is. The plugin, the driver, `telhavet rules` and
// cmd/telhavet/bench.sh read the list.
func TestEveryRuleListed(t *testing.T) {
	var listed []string
	for _, a := range suite.Analyzers {
		listed = append(listed, a.Name)
	}
	slices.Sort(listed)
	rules := rulePackages(t)
	slices.Sort(rules)
	if !slices.Equal(listed, rules) {
		t.Errorf("suite.Analyzers names %v; the rule packages under analyzers/ are %v", listed, rules)
	}
}

// TestEveryRuleTested keeps each rule package whole: its test and its
// cases, txtar archives under testdata/.
func TestEveryRuleTested(t *testing.T) {
	for _, rule := range rulePackages(t) {
		dir := filepath.Join("..", rule)
		if tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go")); len(tests) == 0 {
			t.Errorf("rule %s: no test in analyzers/%s", rule, rule)
		}
		if cases, _ := filepath.Glob(filepath.Join(dir, "testdata", "*.txtar")); len(cases) == 0 {
			t.Errorf("rule %s: no cases in analyzers/%s/testdata/*.txtar", rule, rule)
		}
	}
}

// TestReadmeRules keeps the README's account of the rules whole: each rule
// is named, in backquotes, in the list of what telhavet runs and in the
// layout line of analyzers/.
func TestReadmeRules(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	layout := regexp.MustCompile(`(?m)^analyzers/ .*$`).FindString(text)
	for _, a := range suite.Analyzers {
		if !regexp.MustCompile("`" + a.Name + "`\\s+\\(").MatchString(text) {
			t.Errorf("README.md does not describe the rule %s as `%s` (what it reports)", a.Name, a.Name)
		}
		if !regexp.MustCompile(`\b` + a.Name + `\b`).MatchString(layout) {
			t.Errorf("README.md's layout line of analyzers/ does not name the rule %s", a.Name)
		}
	}
}
