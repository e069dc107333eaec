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
		obj := info.Uses[id]
		if obj == nil || obj.Pkg() == nil || obj.Pkg() == p.Pkg || issuer(obj.Pkg()) {
			continue
		}
		sig := handsOutOf(obj, info.Instances[id].Type)
		if sig == nil {
			continue
		}
		if tn := handsOut(find, sig); tn != nil {
			p.Reportf(id, credentials[tn].Instead(), "%s hands out %s in a package that serves requests, whose scope is the credential's,", refs.Name(obj), refs.Name(tn))
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
	p.Inspector.Preorder([]ast.Node{(*ast.TypeAssertExpr)(nil), (*ast.CallExpr)(nil), (*ast.TypeSwitchStmt)(nil)}, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				to(n.Type, "type assertion")
			}
		case *ast.TypeSwitchStmt:
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					if !info.Types[e].IsNil() {
						to(e, "type switch case")
					}
				}
			}
		case *ast.CallExpr:
			if tv := info.Types[n.Fun]; tv.IsType() && len(n.Args) == 1 && !info.Types[n.Args[0]].IsNil() {
				to(n.Fun, "conversion")
			}
		}
	})
}

// handsOutOf returns the signature through which a use of obj, another
// package's declaration, may hand out values: a function's or method's,
// instantiated (inst, the use's instance type, if generic), or a
// package-level variable's of func type (var ScopeOf =
// storage.NewTenantScope); nil for anything else.
func handsOutOf(obj types.Object, inst types.Type) *types.Signature {
	if sig, ok := inst.(*types.Signature); ok {
		return sig
	}
	switch obj := obj.(type) {
	case *types.Func:
		return obj.Signature()
	case *types.Var:
		if obj.IsField() || obj.Parent() != obj.Pkg().Scope() {
			return nil
		}
		sig, _ := obj.Type().Underlying().(*types.Signature)
		return sig
	}
	return nil
}

// handsOut returns the credential type that sig hands its caller, if any:
// in its results, through a parameter that points to one (FillScope(&s)),
// or through the parameters of a callback it takes (WithScope(func(s
// storage.TenantScope) error)). A parameter of the credential type itself
// is what the caller gives, and is not reported.
func handsOut(find *refs.Finder, sig *types.Signature) *types.TypeName {
	if tn := find.Find(sig.Results()); tn != nil {
		return tn
	}
	params := sig.Params()
	for i := range params.Len() {
		switch t := params.At(i).Type().Underlying().(type) {
		case *types.Pointer:
			if tn := find.Find(t.Elem()); tn != nil {
				return tn
			}
		case *types.Signature:
			if tn := find.Find(t.Params()); tn != nil {
				return tn
			}
		}
	}
	return nil
}
