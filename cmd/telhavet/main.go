// Command telhavet is the static-analysis gate of Telha Core: one binary
// that runs the Telha rules (no raw engine iterators, no keys or ranges built
// from bytes, no system scope outside core/storage), the go vet suite and
// staticcheck's default checks.
//
// Usage:
//
//	telhavet [flags] [packages]
//	go vet -vettool=$(command -v telhavet) [vet flags] [packages]
//	telhavet help [analyzer]
//
// Run directly, telhavet loads the packages itself and behaves like go vet,
// with one addition: at the root of a go.work workspace, "./..." stands for
// every workspace module, where plain go vet fails. Run by go vet, it speaks
// go vet's unit protocol; there, -rawiter -bytekey -systemscope select the
// Telha rules alone.
//
// Flags of the direct mode:
//
//	-json        print the findings as JSON on standard output
//	-telha-only  run the Telha rules only
//	-test=false  leave test files out
//	-c=N         display the offending line with N lines of context
//	-NAME.FLAG   set the flag FLAG of the analyzer NAME
//
// Staticcheck's //lint:ignore directives silence staticcheck's checks only:
// nothing silences a Telha rule or a vet pass.
//
// The exit status is 0 when there is nothing to report, 1 when packages fail
// to load or an analyzer fails, and 3 when there are findings, also with
// -json, so that a gate cannot pass by changing the output format.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/analysis/unitchecker"
	"golang.org/x/tools/go/packages"

	"telha.dev/analyzers/suite"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("telhavet: ")
	if unitMode(os.Args[1:]) {
		unitchecker.Main(bundle()...) // never returns
	}
	os.Exit(run(os.Args[1:]))
}

// unitMode reports whether to hand over to the unit checker: go vet drives
// a vet tool by asking for its version (-V=full) and flags (-flags), then
// passing the flags and one configuration file per package. "telhavet help
// [analyzer]" goes there too, for the unit checker's list of analyzers and
// their documentation.
func unitMode(args []string) bool {
	for _, a := range args {
		switch strings.TrimPrefix(a, "-") {
		case "-V=full", "V=full", "-flags", "flags":
			return true
		}
	}
	return len(args) > 0 && (args[0] == "help" || strings.HasSuffix(args[len(args)-1], ".cfg"))
}

// run is the direct mode: it loads the packages named by args, analyzes
// them, prints the findings and returns the exit status.
func run(args []string) int {
	fs := flag.NewFlagSet("telhavet", flag.ContinueOnError)
	jsonOut := fs.Bool("json", false, "print the findings as JSON on standard output")
	telhaOnly := fs.Bool("telha-only", false, "run only the Telha rules")
	tests := fs.Bool("test", true, "analyze test files too")
	context := fs.Int("c", -1, "display the offending line with this many lines of context")
	all := bundle()
	for _, a := range all {
		a.Flags.VisitAll(func(f *flag.Flag) {
			fs.Var(f.Value, a.Name+"."+f.Name, f.Usage)
		})
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: telhavet [flags] [packages]\n"+
			"       go vet -vettool=$(command -v telhavet) [packages]\n"+
			"       telhavet help [analyzer]\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}

	analyzers := all
	if *telhaOnly {
		analyzers = suite.Analyzers
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}

	dir, err := os.Getwd()
	if err != nil {
		log.Print(err)
		return 1
	}
	patterns, err = expandWorkspacePatterns(dir, patterns)
	if err != nil {
		log.Print(err)
		return 1
	}
	pkgs, err := loadPackages(patterns, *tests, needFacts(analyzers))
	if err != nil {
		log.Print(err)
		return 1
	}
	exit := 0
	if packages.PrintErrors(pkgs) > 0 {
		exit = 1
	}

	graph, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		log.Print(err)
		return 1
	}
	if *jsonOut {
		err = graph.PrintJSON(os.Stdout)
	} else {
		err = graph.PrintText(os.Stderr, *context)
	}
	if err != nil {
		log.Print(err)
		return 1
	}

	findings := 0
	for act := range graph.All() {
		if act.Err != nil {
			exit = 1
		} else if act.IsRoot {
			findings += len(act.Diagnostics)
		}
	}
	if exit == 0 && findings > 0 {
		exit = 3
	}
	return exit
}

// loadPackages loads the packages matching patterns and keeps one variant of
// each, as go vet does: a package with in-package tests is analyzed once,
// together with its test files (otherwise a helper used only by tests would
// be reported unused), and the generated test main packages are left out.
// The whole program is loaded from source when an analyzer needs facts from
// the dependencies, as the Telha rules do to learn the restricted surface.
func loadPackages(patterns []string, tests, allSyntax bool) ([]*packages.Package, error) {
	mode := packages.LoadSyntax | packages.NeedModule | packages.NeedForTest
	if allSyntax {
		mode |= packages.NeedDeps
	}
	cfg := &packages.Config{Mode: mode, Tests: tests}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("%s matched no packages", strings.Join(patterns, " "))
	}

	withTests := make(map[string]bool)
	for _, p := range pkgs {
		if p.ForTest != "" && p.ForTest == p.PkgPath {
			withTests[p.PkgPath] = true
		}
	}
	var units []*packages.Package
	for _, p := range pkgs {
		isTestMain := p.Name == "main" && p.ForTest == "" && strings.HasSuffix(p.PkgPath, ".test")
		if isTestMain || (p.ForTest == "" && withTests[p.PkgPath]) {
			continue
		}
		units = append(units, p)
	}
	return units, nil
}

// needFacts reports whether any of the analyzers, or any analyzer they
// require, uses facts, in which case the dependencies must be analyzed too.
func needFacts(analyzers []*analysis.Analyzer) bool {
	seen := make(map[*analysis.Analyzer]bool)
	queue := append([]*analysis.Analyzer(nil), analyzers...)
	for len(queue) > 0 {
		a := queue[0]
		queue = queue[1:]
		if seen[a] {
			continue
		}
		seen[a] = true
		if len(a.FactTypes) > 0 {
			return true
		}
		queue = append(queue, a.Requires...)
	}
	return false
}
