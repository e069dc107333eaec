package capability

import (
	_ "embed"
	"fmt"

	"golang.org/x/tools/go/analysis"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/marks"
	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/rule"
)

//go:embed doc.go
var doc string

// Analyzer reports capabilities used outside the key authority that
// authority.conf does not grant.
var Analyzer = rule.New("capability", doc, nil, run)

// checker reports the capabilities of one package.
type checker struct {
	p        *rule.Pass
	pkg      authority.Package
	reported map[reportedLine]bool
}

// reportedLine is a line with a finding of a capability: a line is what a
// reader fixes, so it has one finding per capability.
type reportedLine struct {
	capability, file string
	line             int
}

func run(p *rule.Pass) {
	if p.Module.Version != "" {
		return // a module from the module cache: not the workspace's code
	}
	c := &checker{p: p, pkg: marks.PackageOf(p.Pass), reported: make(map[reportedLine]bool)}
	files := native.Files(p.Fset, p.Files)
	c.imports(files)
	c.pointers(files)
	c.linknames(files)
	c.assembly(files)
	c.dynamicLoading(files)
	c.reflection()
}

// report reports the use of a capability at rng, unless it is granted.
func (c *checker) report(capability string, rng analysis.Range, format string, args ...any) {
	if _, ok := c.p.Config.Granted(c.pkg, capability, c.p.Marks.Root()); ok {
		return
	}
	posn := c.p.Fset.Position(rng.Pos())
	at := reportedLine{capability, posn.Filename, posn.Line}
	if c.reported[at] {
		return
	}
	c.reported[at] = true
	home := c.pkg.Home()
	advice := fmt.Sprintf("do without it, or grant it in analyzers/authority/authority.conf with the reason: grant %s %s <reason>", home, capability)
	c.p.Reportf(rng, advice, "%s, capability %s, not granted to %s,", fmt.Sprintf(format, args...), capability, home)
}
