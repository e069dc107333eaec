package bytekey

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"telha.dev/analyzers/internal/authority"
	"telha.dev/analyzers/internal/marks"
	"telha.dev/analyzers/internal/refs"
)

// Analyzer reports keys and scan ranges built from bytes outside the key
// authority.
var Analyzer = &analysis.Analyzer{
	Name:     "bytekey",
	Doc:      Doc,
	Requires: []*analysis.Analyzer{inspect.Analyzer, marks.Analyzer},
	Run:      run,
}

var tree *authority.Paths

func init() {
	tree = authority.TreeFlag(&Analyzer.Flags)
}

func run(pass *analysis.Pass) (any, error) {
	if tree.Contains(pass.Pkg.Path()) {
		return nil, nil
	}
	checkLinknames(pass)
	set := pass.ResultOf[marks.Analyzer].(*marks.Set)
	insp := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	rawBytes := set.Select(*tree, func(d marks.Directive) bool {
		return d.Verb == marks.Restricted && d.Kind == marks.RawBytes
	})
	if rawBytes != nil {
		refs.Check(pass, insp, rawBytes)
	}
	opaque := set.Select(*tree, func(d marks.Directive) bool {
		return d.Verb == marks.Opaque
	})
	if opaque != nil {
		checkConstruction(pass, insp, opaque)
	}
	return nil, nil
}

// checkLinknames reports the //go:linkname directives that target a
// package of the authority tree. The compiler accepts them only in files
// that import unsafe.
func checkLinknames(pass *analysis.Pass) {
	for _, file := range pass.Files {
		if !importsUnsafe(pass.TypesInfo, file) {
			continue
		}
		for _, group := range file.Comments {
			for _, c := range group.List {
				rest, ok := strings.CutPrefix(c.Text, "//go:linkname ")
				if !ok {
					continue
				}
				fields := strings.Fields(rest)
				if len(fields) == 2 && tree.Contains(linknamePackage(fields[1])) {
					pass.ReportRangef(c, "//go:linkname to %s reaches into the key authority; use its exported constructors and accessors", fields[1])
				}
			}
		}
	}
}

func importsUnsafe(info *types.Info, file *ast.File) bool {
	for _, imp := range file.Imports {
		if info.PkgNameOf(imp).Imported().Path() == "unsafe" {
			return true
		}
	}
	return false
}

// linknamePackage returns the import path in a linkname target such as
// "telha.dev/core/storage.(*Key).init".
func linknamePackage(target string) string {
	slash := strings.LastIndexByte(target, '/') + 1
	if dot := strings.IndexByte(target[slash:], '.'); dot >= 0 {
		return target[:slash+dot]
	}
	return target
}

// checkConstruction reports the values of opaque types made otherwise than
// by the constructors of the authority.
func checkConstruction(pass *analysis.Pass, insp *inspector.Inspector, opaque marks.Index) {
	info := pass.TypesInfo
	insp.Preorder([]ast.Node{(*ast.CompositeLit)(nil), (*ast.CallExpr)(nil)}, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.CompositeLit:
			// The type of an elided &T{} in a composite literal is *T.
			if tn := opaqueName(info.TypeOf(n), opaque); tn != nil {
				pass.ReportRangef(n, "composite literal of opaque %s outside the key authority; %s", refs.Name(tn), opaque[tn].Instead())
			}
		case *ast.CallExpr:
			if tv := info.Types[n.Fun]; tv.IsType() {
				checkConversion(pass, n, tv.Type, opaque)
			} else if fn, ok := typeutil.Callee(info, n).(*types.Func); ok && constructs(fn) {
				checkReflect(pass, n, fn, opaque)
			}
		}
	})
}

// checkConversion reports the conversion call to type target if it makes
// an opaque value: a conversion to an opaque type or a pointer to one from
// another type, or an unsafe.Pointer conversion to a type holding one.
func checkConversion(pass *analysis.Pass, call *ast.CallExpr, target types.Type, opaque marks.Index) {
	if len(call.Args) != 1 {
		return
	}
	src := pass.TypesInfo.TypeOf(call.Args[0])
	if basic, ok := src.Underlying().(*types.Basic); ok && basic.Kind() == types.UnsafePointer {
		if tn := refs.Find(target, opaque); tn != nil {
			pass.ReportRangef(call, "unsafe.Pointer conversion to %s makes an opaque %s outside the key authority; %s",
				refs.TypeString(target), refs.Name(tn), opaque[tn].Instead())
		}
		return
	}
	if tn := opaqueName(target, opaque); tn != nil && !types.Identical(src, target) {
		pass.ReportRangef(call, "conversion to %s makes an opaque %s outside the key authority; %s",
			refs.TypeString(target), refs.Name(tn), opaque[tn].Instead())
	}
}

// constructs reports whether fn makes or overwrites a value of a type given
// to it: reflect.New, NewAt, Zero, and reflect.Value's Set, SetBytes,
// SetPointer and Convert.
func constructs(fn *types.Func) bool {
	if fn.Pkg() == nil || fn.Pkg().Path() != "reflect" {
		return false
	}
	if fn.Signature().Recv() == nil {
		switch fn.Name() {
		case "New", "NewAt", "Zero":
			return true
		}
		return false
	}
	switch fn.Name() {
	case "Set", "SetBytes", "SetPointer", "Convert":
		return true
	}
	return false
}

// checkReflect reports the call of the reflect function fn if an
// expression in it, receiver or argument, has a type involving an opaque
// type.
func checkReflect(pass *analysis.Pass, call *ast.CallExpr, fn *types.Func, opaque marks.Index) {
	var tn *types.TypeName
	ast.Inspect(call, func(n ast.Node) bool {
		if e, ok := n.(ast.Expr); ok && tn == nil {
			if t := pass.TypesInfo.TypeOf(e); t != nil {
				tn = refs.Find(t, opaque)
			}
		}
		return tn == nil
	})
	if tn != nil {
		pass.ReportRangef(call, "%s on a type derived from opaque %s outside the key authority; %s", refs.Name(fn), refs.Name(tn), opaque[tn].Instead())
	}
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
