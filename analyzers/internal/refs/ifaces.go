package refs

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"

	"telha.dev/analyzers/internal/rule"
)

// CheckInterfaces reports the interfaces outside the authority through
// which a forbidden method is reached without being named: methods is the
// list of forbidden methods, and it reports
//   - an interface method declared with the name and signature of one;
//   - a value converted to an interface, other than the authority's own,
//     whose method its type implements with a forbidden method;
//   - a type assertion or type switch case to an interface, other than
//     the authority's own, with a method of the name and signature of one.
//
// An interface of the authority is left alone: a call of its forbidden
// method is reported where it is made.
func CheckInterfaces(p *rule.Pass, r Rule, methods []*types.Func) {
	if len(methods) == 0 {
		return
	}
	info := p.TypesInfo
	// like returns the forbidden method that m has the name and signature of.
	like := func(m *types.Func) *types.Func {
		for _, f := range methods {
			if f.Name() == m.Name() && types.Identical(f.Type(), m.Type()) {
				return f
			}
		}
		return nil
	}
	ours := func(t types.Type) (*types.Interface, bool) {
		iface, ok := underlying(t).(*types.Interface)
		if !ok {
			return nil, false
		}
		if named, ok := types.Unalias(t).(*types.Named); ok && named.Obj().Pkg() != nil && p.Marks.InAuthority(named.Obj().Pkg()) {
			return nil, false
		}
		return iface, true
	}

	for field := range inspector.All[*ast.InterfaceType](p.Inspector) {
		for _, f := range field.Methods.List {
			for _, name := range f.Names {
				if m, ok := info.Defs[name].(*types.Func); ok {
					if fm := like(m); fm != nil {
						what, advice := r.Describe(fm)
						p.Reportf(name, advice, "interface method %s has the name and signature of %s %s",
							m.Name(), what, Name(fm))
					}
				}
			}
		}
	}

	Conversions(info, p.Inspector, func(e ast.Expr, to types.Type) {
		iface, ok := ours(to)
		if !ok {
			return
		}
		from := info.TypeOf(e)
		for i := range iface.NumMethods() {
			m := iface.Method(i)
			found, _, _ := types.LookupFieldOrMethod(from, true, m.Pkg(), m.Name())
			if found == nil || !r.Match(origin(found)) {
				continue
			}
			what, advice := r.Describe(origin(found))
			p.Reportf(e, advice, "%s converted to %s reaches %s %s", TypeString(from), TypeString(to), what, Name(origin(found)))
			return
		}
	})

	assertTo := func(typeExpr ast.Expr) {
		iface, ok := ours(info.TypeOf(typeExpr))
		if !ok {
			return
		}
		for i := range iface.NumMethods() {
			if fm := like(iface.Method(i)); fm != nil {
				what, advice := r.Describe(fm)
				p.Reportf(typeExpr, advice, "type assertion to %s reaches %s %s by its name and signature",
					TypeString(info.TypeOf(typeExpr)), what, Name(fm))
				return
			}
		}
	}
	p.Inspector.Preorder([]ast.Node{(*ast.TypeAssertExpr)(nil), (*ast.TypeSwitchStmt)(nil)}, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				assertTo(n.Type)
			}
		case *ast.TypeSwitchStmt:
			for _, clause := range n.Body.List {
				for _, typeExpr := range clause.(*ast.CaseClause).List {
					assertTo(typeExpr)
				}
			}
		}
	})
}
