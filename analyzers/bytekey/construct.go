package bytekey

import (
	"go/ast"
	"go/types"

	"telha.dev/analyzers/internal/marks"
	"telha.dev/analyzers/internal/refs"
	"telha.dev/analyzers/internal/rule"
)

// checkConstruction reports the values of opaque types made otherwise than
// by the constructors of the authority: by composite literal, or by
// conversion from another type.
func checkConstruction(p *rule.Pass, opaque marks.Index) {
	info := p.TypesInfo
	p.Inspector.Preorder([]ast.Node{(*ast.CompositeLit)(nil), (*ast.CallExpr)(nil)}, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.CompositeLit:
			// The type of an elided &T{} in a composite literal is *T.
			if tn := opaqueName(info.TypeOf(n), opaque); tn != nil {
				p.Reportf(n, opaque[tn].Instead(), "composite literal of opaque %s", refs.Name(tn))
			}
		case *ast.CallExpr:
			tv := info.Types[n.Fun]
			if !tv.IsType() || len(n.Args) != 1 {
				return
			}
			arg := info.Types[n.Args[0]]
			if arg.IsNil() || isUnsafePointer(arg.Type) || types.Identical(arg.Type, tv.Type) {
				return // nil makes no value; unsafe.Pointer is checkSinks' business
			}
			if tn := opaqueName(tv.Type, opaque); tn != nil {
				p.Reportf(n, opaque[tn].Instead(), "conversion to %s makes an opaque %s", refs.TypeString(tv.Type), refs.Name(tn))
			}
		}
	})
}

// opaqueName returns the type name of t, or of what t points to, if it is
// an opaque type.
func opaqueName(t types.Type, opaque marks.Index) *types.TypeName {
	t = types.Unalias(t)
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	if named, ok := types.Unalias(t).(*types.Named); ok && opaque.Match(named.Origin().Obj()) {
		return named.Origin().Obj()
	}
	return nil
}

func isUnsafePointer(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.UnsafePointer
}
