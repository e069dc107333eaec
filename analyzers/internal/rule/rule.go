// Package rule is what every Telha rule shares: the analyzer constructor
// with the one test "is this package in the key authority? then skip it",
// and the wording of the diagnostics.
package rule

import (
	"fmt"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/marks"
)

// A Pass is the analysis of one package outside the key authority.
type Pass struct {
	*analysis.Pass
	Inspector *inspector.Inspector
	// Marks is what the package knows about the authority.
	Marks *marks.Set
	// Config is the authority's configuration.
	Config *authority.Config
}

// New returns the analyzer of a Telha rule. doc is the source of the
// rule's doc.go, whose package comment documents it after a
// "# Analyzer name" heading. check runs on every package outside
// the key authority that may reach what the rules forbid (see Reaches);
// native runs on every package of a module outside the authority, for
// what needs no import: cgo and //go:linkname. Either may be
// nil. Neither runs on a binding itself.
func New(name, doc string, check, native func(*Pass), requires ...*analysis.Analyzer) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:     name,
		Doc:      Doc(doc, name),
		Requires: slices.Concat([]*analysis.Analyzer{inspect.Analyzer, marks.Analyzer}, requires),
		Run: func(pass *analysis.Pass) (any, error) {
			if authority.Err != nil {
				return nil, authority.Err
			}
			set := pass.ResultOf[marks.Analyzer].(*marks.Set)
			if set.Inside || !InModule(pass) || authority.Default.IsBinding(pass.Pkg.Path()) || isTestMain(pass) {
				return nil, nil
			}
			p := &Pass{
				Pass:      pass,
				Inspector: pass.ResultOf[inspect.Analyzer].(*inspector.Inspector),
				Marks:     set,
				Config:    authority.Default,
			}
			if native != nil {
				native(p)
			}
			if check != nil && Reaches(pass.Pkg, authority.Default) {
				check(p)
			}
			return nil, nil
		},
	}
}

// Doc extracts the documentation of analyzer name from src, the source of
// its doc.go: the text of the package comment after the "# Analyzer name"
// heading, as x/tools' passes do.
func Doc(src, name string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", src, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil || f.Doc == nil {
		panic(fmt.Sprintf("doc.go of %s has no package comment: %v", name, err))
	}
	_, rest, ok := strings.Cut(f.Doc.Text(), "# Analyzer "+name+"\n")
	if !ok {
		panic(fmt.Sprintf("package comment of %s has no %q heading", name, "# Analyzer "+name))
	}
	return strings.TrimSpace(rest)
}

// InModule reports whether the package of pass belongs to a module: the
// standard library (and code outside any module) is not checked, and
// cannot use what the rules forbid.
func InModule(pass *analysis.Pass) bool {
	return pass.Module != nil && pass.Module.Path != ""
}

// isTestMain reports whether the package of pass is the main package that
// go test generates to run a package's tests (some drivers analyze it):
// its path ends in ".test" and none of its files is a .go file of the
// source tree.
func isTestMain(pass *analysis.Pass) bool {
	if pass.Pkg.Name() != "main" || !strings.HasSuffix(pass.Pkg.Path(), ".test") {
		return false
	}
	for _, f := range pass.Files {
		if tf := pass.Fset.File(f.FileStart); tf == nil || strings.HasSuffix(tf.Name(), ".go") {
			return false
		}
	}
	return true
}

// Reaches reports whether pkg or a package it imports, directly or not,
// may be in the authority or a binding (Config.MayReach): otherwise no
// type or declaration that the rules forbid is visible in pkg.
func Reaches(pkg *types.Package, c *authority.Config) bool {
	return authority.Reaches(pkg, c.MayReach)
}

// Outside is the wording of every finding: what was found, then "outside
// the key authority; " and the advice.
func Outside(what, advice string) string {
	return what + " outside the key authority; " + advice
}

// At is the range of a position alone, for findings at a line of a non-Go
// file or at a comment line.
type At token.Pos

// Pos returns the position.
func (a At) Pos() token.Pos { return token.Pos(a) }

// End returns the position too.
func (a At) End() token.Pos { return token.Pos(a) }

// Reportf reports a finding at rng: the formatted text, then "outside the
// key authority; " and the advice.
func (p *Pass) Reportf(rng analysis.Range, advice, format string, args ...any) {
	p.ReportRangef(rng, "%s", Outside(fmt.Sprintf(format, args...), advice))
}
