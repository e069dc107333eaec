package main

import (
	"fmt"
	"go/token"
	"path"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/appends"
	"golang.org/x/tools/go/analysis/passes/asmdecl"
	"golang.org/x/tools/go/analysis/passes/assign"
	"golang.org/x/tools/go/analysis/passes/atomic"
	"golang.org/x/tools/go/analysis/passes/bools"
	"golang.org/x/tools/go/analysis/passes/buildtag"
	"golang.org/x/tools/go/analysis/passes/cgocall"
	"golang.org/x/tools/go/analysis/passes/composite"
	"golang.org/x/tools/go/analysis/passes/copylock"
	"golang.org/x/tools/go/analysis/passes/defers"
	"golang.org/x/tools/go/analysis/passes/directive"
	"golang.org/x/tools/go/analysis/passes/errorsas"
	"golang.org/x/tools/go/analysis/passes/framepointer"
	"golang.org/x/tools/go/analysis/passes/hostport"
	"golang.org/x/tools/go/analysis/passes/httpresponse"
	"golang.org/x/tools/go/analysis/passes/ifaceassert"
	"golang.org/x/tools/go/analysis/passes/loopclosure"
	"golang.org/x/tools/go/analysis/passes/lostcancel"
	"golang.org/x/tools/go/analysis/passes/nilfunc"
	"golang.org/x/tools/go/analysis/passes/printf"
	"golang.org/x/tools/go/analysis/passes/shift"
	"golang.org/x/tools/go/analysis/passes/sigchanyzer"
	"golang.org/x/tools/go/analysis/passes/slog"
	"golang.org/x/tools/go/analysis/passes/stdmethods"
	"golang.org/x/tools/go/analysis/passes/stdversion"
	"golang.org/x/tools/go/analysis/passes/stringintconv"
	"golang.org/x/tools/go/analysis/passes/structtag"
	"golang.org/x/tools/go/analysis/passes/testinggoroutine"
	"golang.org/x/tools/go/analysis/passes/tests"
	"golang.org/x/tools/go/analysis/passes/timeformat"
	"golang.org/x/tools/go/analysis/passes/unmarshal"
	"golang.org/x/tools/go/analysis/passes/unreachable"
	"golang.org/x/tools/go/analysis/passes/unsafeptr"
	"golang.org/x/tools/go/analysis/passes/unusedresult"
	"golang.org/x/tools/go/analysis/passes/waitgroup"
	"honnef.co/go/tools/analysis/facts/directives"
	"honnef.co/go/tools/analysis/lint"
	"honnef.co/go/tools/simple"
	"honnef.co/go/tools/staticcheck"
	"honnef.co/go/tools/stylecheck"
	"honnef.co/go/tools/unused"

	"telha.dev/analyzers/inventory"
	"telha.dev/analyzers/suite"
)

// vetAnalyzers is the suite that cmd/vet of Go 1.26 runs, so that telhavet
// can replace go vet rather than run beside it.
var vetAnalyzers = []*analysis.Analyzer{
	appends.Analyzer,
	asmdecl.Analyzer,
	assign.Analyzer,
	atomic.Analyzer,
	bools.Analyzer,
	buildtag.Analyzer,
	cgocall.Analyzer,
	composite.Analyzer,
	copylock.Analyzer,
	defers.Analyzer,
	directive.Analyzer,
	errorsas.Analyzer,
	framepointer.Analyzer,
	httpresponse.Analyzer,
	hostport.Analyzer,
	ifaceassert.Analyzer,
	loopclosure.Analyzer,
	lostcancel.Analyzer,
	nilfunc.Analyzer,
	printf.Analyzer,
	shift.Analyzer,
	sigchanyzer.Analyzer,
	slog.Analyzer,
	stdmethods.Analyzer,
	stdversion.Analyzer,
	stringintconv.Analyzer,
	structtag.Analyzer,
	tests.Analyzer,
	testinggoroutine.Analyzer,
	timeformat.Analyzer,
	unmarshal.Analyzer,
	unreachable.Analyzer,
	unsafeptr.Analyzer,
	unusedresult.Analyzer,
	waitgroup.Analyzer,
}

// bundle returns every analyzer telhavet runs by default: the Telha rules,
// the go vet suite and staticcheck's default checks, and the inventory
// through which the driver learns what was analyzed (silent unless the
// driver asks). The Telha rules are never wrapped, so no directive of any
// linter can silence them.
func bundle() []*analysis.Analyzer {
	var all []*analysis.Analyzer
	all = append(all, suite.Analyzers...)
	all = append(all, inventory.Analyzer)
	all = append(all, vetAnalyzers...)
	all = append(all, staticcheckAnalyzers()...)
	return all
}

// staticcheckAnalyzers returns the checks the staticcheck command runs
// without a configuration file: every check of simple, staticcheck and
// stylecheck except those documented as non-default (chiefly the opinionated
// style checks ST1000, ST1003, ST1016, ST1020-ST1023), plus unused (U1000).
// Each honours staticcheck's //lint:ignore directives, as it does upstream.
func staticcheckAnalyzers() []*analysis.Analyzer {
	var checks []*lint.Analyzer
	checks = append(checks, simple.Analyzers...)
	checks = append(checks, staticcheck.Analyzers...)
	checks = append(checks, stylecheck.Analyzers...)

	var out []*analysis.Analyzer
	for _, c := range checks {
		if c.Doc.NonDefault {
			continue
		}
		out = append(out, honorLintIgnore(c.Analyzer))
	}
	return append(out, honorLintIgnore(unusedAnalyzer))
}

// unusedAnalyzer turns the result of staticcheck's unused analyzer into
// diagnostics. Upstream, the analyzer only returns the objects it found and
// the staticcheck command reports them after merging the results of a
// package and its test variant; telhavet analyzes one variant per package
// (see loadPackages), so reporting per pass gives the same answer.
var unusedAnalyzer = &analysis.Analyzer{
	Name:     unused.Analyzer.Analyzer.Name,
	Doc:      unused.Analyzer.Analyzer.Doc,
	URL:      "https://staticcheck.dev/docs/checks/#U1000",
	Requires: []*analysis.Analyzer{unused.Analyzer.Analyzer},
	Run:      reportUnused,
}

func reportUnused(pass *analysis.Pass) (any, error) {
	res := pass.ResultOf[unused.Analyzer.Analyzer].(unused.Result)

	// An object can be listed both as used and unused when it is reached
	// through several paths (for example fields of generic instances);
	// upstream treats any use as a use.
	type key struct {
		file string
		line int
		name string
	}
	used := make(map[key]bool)
	for _, obj := range res.Used {
		used[key{obj.Position.Filename, obj.Position.Line, obj.Name}] = true
	}
	for _, obj := range res.Unused {
		if obj.Kind == "type param" || used[key{obj.Position.Filename, obj.Position.Line, obj.Name}] {
			continue
		}
		pos, ok := posOf(pass, obj.Position)
		if !ok {
			return nil, fmt.Errorf("unused object %s at %v is outside the package's files", obj.Name, obj.Position)
		}
		pass.Reportf(pos, "%s %s is unused", obj.Kind, obj.Name)
	}
	return nil, nil
}

// posOf maps a position of one of the pass's files back to a token.Pos.
func posOf(pass *analysis.Pass, p token.Position) (token.Pos, bool) {
	for _, f := range pass.Files {
		tf := pass.Fset.File(f.FileStart)
		if tf == nil || tf.Name() != p.Filename || p.Line < 1 || p.Line > tf.LineCount() {
			continue
		}
		return tf.LineStart(p.Line) + token.Pos(p.Column-1), true
	}
	return token.NoPos, false
}

// honorLintIgnore returns a copy of the staticcheck check a that drops the
// diagnostics silenced by a //lint:ignore or //lint:file-ignore directive
// naming it (with a reason), as the staticcheck command does. Only
// staticcheck's checks are wrapped, so such a directive can never silence a
// Telha rule or a vet pass.
func honorLintIgnore(a *analysis.Analyzer) *analysis.Analyzer {
	w := *a
	w.Requires = slices.Clip(a.Requires)
	if !slices.Contains(w.Requires, directives.Analyzer) {
		w.Requires = append(w.Requires, directives.Analyzer)
	}
	w.Run = func(pass *analysis.Pass) (any, error) {
		ignored := ignoredBy(pass, pass.ResultOf[directives.Analyzer].([]lint.Directive), a.Name)
		inner := *pass
		inner.Report = func(d analysis.Diagnostic) {
			if !ignored(pass.Fset.Position(d.Pos)) {
				pass.Report(d)
			}
		}
		return a.Run(&inner)
	}
	return &w
}

// ignoredBy returns a predicate that reports whether a diagnostic of the
// named check at a position is silenced by one of the directives. A line
// directive covers the line where the node it documents starts; a file
// directive covers its whole file. Check names are glob patterns, compared
// case-insensitively. A directive without a reason silences nothing.
func ignoredBy(pass *analysis.Pass, dirs []lint.Directive, check string) func(token.Position) bool {
	type line struct {
		file string
		line int
	}
	lines := make(map[line]bool)
	files := make(map[string]bool)
	for _, d := range dirs {
		if len(d.Arguments) < 2 || !matchesCheck(d.Arguments[0], check) {
			continue
		}
		p := pass.Fset.Position(d.Node.Pos())
		switch d.Command {
		case "ignore":
			lines[line{p.Filename, p.Line}] = true
		case "file-ignore":
			files[p.Filename] = true
		}
	}
	return func(p token.Position) bool {
		return files[p.Filename] || lines[line{p.Filename, p.Line}]
	}
}

// matchesCheck reports whether a comma-separated list of check patterns,
// as written in a directive, names the check.
func matchesCheck(list, check string) bool {
	for pattern := range strings.SplitSeq(list, ",") {
		if ok, _ := path.Match(strings.ToLower(pattern), strings.ToLower(check)); ok {
			return true
		}
	}
	return false
}
