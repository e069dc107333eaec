package scopesource

import (
	_ "embed"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/marks"
	"telha.dev/analyzers/internal/refs"
	"telha.dev/analyzers/internal/rule"
)

//go:embed doc.go
var doc string

// Issuer is the fact that a package has the grant of "scope": the scopes
// its functions return are the credential's.
type Issuer struct{}

// AFact marks Issuer as an analysis fact.
func (*Issuer) AFact() {}

func (*Issuer) String() string { return "scope issuer" }

// Analyzer reports tenant scopes made in packages that serve requests,
// other than from the request's credential.
var Analyzer = func() *analysis.Analyzer {
	a := rule.New("scopesource", doc, run, nil)
	a.FactTypes = []analysis.Fact{new(Issuer)}
	return a
}()

func run(p *rule.Pass) {
	pkg := marks.PackageOf(p.Pass)
	root := p.Marks.Root()
	if _, ok := p.Config.Granted(pkg, authority.Scope, root); ok {
		p.ExportPackageFact(new(Issuer))
		return
	}
	if !p.Config.Serving(pkg, root) {
		return
	}
	credentials := p.Marks.Select(func(d marks.Directive) bool { return d.Verb == marks.Credential })
	if credentials == nil {
		return
	}
	find := refs.NewFinder(p, credentials).VisibleFrom(p.Pkg)
	info := p.TypesInfo
	issuer := func(pkg *types.Package) bool { return p.ImportPackageFact(pkg, new(Issuer)) }
	for id := range inspector.All[*ast.Ident](p.Inspector) {
		fn, ok := info.Uses[id].(*types.Func)
		if !ok || fn.Pkg() == nil || fn.Pkg() == p.Pkg || issuer(fn.Pkg()) {
			continue
		}
		if tn := find.Find(fn.Signature().Results()); tn != nil {
			d := credentials[tn]
			p.Reportf(id, d.Instead(), "%s returns %s in a package that serves requests, whose scope is the credential's,", refs.Name(fn), refs.Name(tn))
		}
	}
	to := func(e ast.Expr, what string) {
		t := info.TypeOf(e)
		if t == nil {
			return
		}
		if tn := find.Find(t); tn != nil {
			p.Reportf(e, credentials[tn].Instead(), "%s to %s in a package that serves requests, whose scope is the credential's,", what, refs.TypeString(t))
		}
	}
	p.Inspector.Preorder([]ast.Node{(*ast.TypeAssertExpr)(nil), (*ast.CallExpr)(nil)}, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				to(n.Type, "type assertion")
			}
		case *ast.CallExpr:
			if tv := info.Types[n.Fun]; tv.IsType() && len(n.Args) == 1 && !info.Types[n.Args[0]].IsNil() {
				to(n.Fun, "conversion")
			}
		}
	})
}
