package refs

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"
)

// Conversions calls visit for every expression of the package that is
// converted to another type, explicitly (T(x)) or implicitly: assigned,
// declared, passed, returned, sent, or placed in a composite literal or as
// a map key where a value of type to is expected. Untyped constants and
// nil are left out: they carry no value of a type of their own.
func Conversions(info *types.Info, insp *inspector.Inspector, visit func(e ast.Expr, to types.Type)) {
	to := func(e ast.Expr, t types.Type) {
		if t == nil {
			return
		}
		tv, ok := info.Types[e]
		if !ok || tv.Value != nil || tv.IsNil() || tv.Type == nil || types.Identical(tv.Type, t) {
			return
		}
		if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
			return
		}
		visit(e, t)
	}
	kinds := []ast.Node{
		(*ast.AssignStmt)(nil), (*ast.ValueSpec)(nil), (*ast.CallExpr)(nil), (*ast.ReturnStmt)(nil),
		(*ast.CompositeLit)(nil), (*ast.SendStmt)(nil), (*ast.IndexExpr)(nil),
	}
	insp.WithStack(kinds, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, lhs := range n.Lhs {
					to(n.Rhs[i], info.TypeOf(lhs))
				}
			}
		case *ast.ValueSpec:
			if n.Type != nil && len(n.Names) == len(n.Values) {
				for _, v := range n.Values {
					to(v, info.TypeOf(n.Type))
				}
			}
		case *ast.CallExpr:
			callConversions(info, n, to)
		case *ast.ReturnStmt:
			if results := enclosingResults(info, stack); results != nil && results.Len() == len(n.Results) {
				for i, r := range n.Results {
					to(r, results.At(i).Type())
				}
			}
		case *ast.CompositeLit:
			compositeConversions(info, n, to)
		case *ast.SendStmt:
			if ch, ok := underlying(info.TypeOf(n.Chan)).(*types.Chan); ok {
				to(n.Value, ch.Elem())
			}
		case *ast.IndexExpr:
			if m, ok := underlying(info.TypeOf(n.X)).(*types.Map); ok {
				to(n.Index, m.Key())
			}
		}
		return true
	})
}

// callConversions visits the arguments of a call or conversion.
func callConversions(info *types.Info, call *ast.CallExpr, to func(ast.Expr, types.Type)) {
	if tv := info.Types[call.Fun]; tv.IsType() {
		if len(call.Args) == 1 {
			to(call.Args[0], tv.Type)
		}
		return
	}
	sig, ok := underlying(info.TypeOf(call.Fun)).(*types.Signature)
	if !ok {
		return // a builtin
	}
	params := sig.Params()
	if len(call.Args) == 1 && params.Len() > 1 {
		return // f(g()) with several results
	}
	for i, arg := range call.Args {
		switch {
		case sig.Variadic() && i >= params.Len()-1 && !call.Ellipsis.IsValid():
			to(arg, params.At(params.Len()-1).Type().(*types.Slice).Elem())
		case i < params.Len():
			to(arg, params.At(i).Type())
		}
	}
}

// compositeConversions visits the elements of a composite literal.
func compositeConversions(info *types.Info, lit *ast.CompositeLit, to func(ast.Expr, types.Type)) {
	t := underlying(info.TypeOf(lit))
	if ptr, ok := t.(*types.Pointer); ok {
		t = underlying(ptr.Elem())
	}
	for i, elt := range lit.Elts {
		key, value := ast.Expr(nil), elt
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			key, value = kv.Key, kv.Value
		}
		switch t := t.(type) {
		case *types.Struct:
			if id, ok := key.(*ast.Ident); ok {
				if f, ok := info.Uses[id].(*types.Var); ok {
					to(value, f.Type())
				}
			} else if key == nil && i < t.NumFields() {
				to(value, t.Field(i).Type())
			}
		case *types.Slice:
			to(value, t.Elem())
		case *types.Array:
			to(value, t.Elem())
		case *types.Map:
			if key != nil {
				to(key, t.Key())
			}
			to(value, t.Elem())
		}
	}
}

// enclosingResults returns the results of the innermost function around
// the top of stack.
func enclosingResults(info *types.Info, stack []ast.Node) *types.Tuple {
	for i := len(stack) - 1; i >= 0; i-- {
		switch f := stack[i].(type) {
		case *ast.FuncLit:
			if sig, ok := info.TypeOf(f).(*types.Signature); ok {
				return sig.Results()
			}
			return nil
		case *ast.FuncDecl:
			if fn, ok := info.Defs[f.Name].(*types.Func); ok {
				return fn.Signature().Results()
			}
			return nil
		}
	}
	return nil
}

// underlying returns the underlying type of t, or nil.
func underlying(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	return t.Underlying()
}
