package refs

import (
	"go/ast"
	"go/types"

	"telha.dev/analyzers/internal/rule"
)

// CheckInterfaces reports where a forbidden method is reached through an
// interface or func type of the package without being named: funcs is the
// list of forbidden functions and methods, and it reports
//   - a value converted to an interface, other than the authority's own,
//     whose method its type implements with a forbidden method (the
//     interface itself, which may merely share a method's name and
//     signature, is not reported: only a value of a forbidden type put
//     into it);
//   - a type assertion or type switch case to a func type with the
//     signature of a forbidden function or of a forbidden method's method
//     expression, if that signature holds a type of the authority (so that
//     func() []byte matches nothing).
//
// An interface of the authority is left alone: a call of its forbidden
// method is reported where it is made.
func CheckInterfaces(p *rule.Pass, r Rule, funcs []*types.Func) {
	if len(funcs) == 0 {
		return
	}
	info := p.TypesInfo
	authorityTypes := AuthorityTypes(p)
	// sameFunc returns the forbidden function whose signature, or whose
	// method expression's, sig is.
	sameFunc := func(sig *types.Signature) *types.Func {
		if authorityTypes.Find(sig) == nil {
			return nil
		}
		for _, f := range funcs {
			if types.Identical(expression(f), sig) {
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

	Conversions(info, p.Inspector, func(e ast.Expr, to types.Type) {
		iface, ok := ours(to)
		if !ok {
			return
		}
		from := info.TypeOf(e)
		if found := implementing(from, iface, r); found != nil {
			what, advice := r.Describe(found)
			p.Reportf(e, advice, "%s converted to %s reaches %s %s", TypeString(from), TypeString(to), what, Name(found))
		}
	})

	assertTo := func(typeExpr ast.Expr) {
		if sig, ok := underlying(info.TypeOf(typeExpr)).(*types.Signature); ok {
			if f := sameFunc(sig); f != nil {
				what, advice := r.Describe(f)
				p.Reportf(typeExpr, advice, "type assertion to %s, the signature of %s %s,",
					TypeString(info.TypeOf(typeExpr)), what, Name(f))
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

// expression returns the signature of f as a function value: that of a
// function, or of a method's method expression, which takes the receiver
// first.
func expression(f *types.Func) *types.Signature {
	sig := f.Signature()
	recv := sig.Recv()
	if recv == nil {
		return sig
	}
	params := []*types.Var{recv}
	for i := range sig.Params().Len() {
		params = append(params, sig.Params().At(i))
	}
	return types.NewSignatureType(nil, nil, nil, types.NewTuple(params...), sig.Results(), sig.Variadic())
}
