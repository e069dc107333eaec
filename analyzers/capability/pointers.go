package capability

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/native"
)

// pointers reports, in the files that do not import unsafe, every value of
// type unsafe.Pointer: a dependency can hand one out (a function that
// returns it) and the package can then forge typed pointers from it by
// conversion, which needs no import. In a file that imports unsafe, the
// import is the finding. The files cgo generates from an author's file
// hold the pointers cgo itself passes; the package's import "C" is
// reported for them. A pointer that reflect.Value.UnsafePointer returns
// is reflect's capability, reported as such.
func (c *checker) pointers(files []*ast.File) {
	info := c.p.TypesInfo
	for _, f := range files {
		if native.IsCgoOutput(f) || importsUnsafe(f) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			e, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			tv, ok := info.Types[e]
			if !ok || tv.IsType() || !isUnsafePointer(tv.Type) {
				return true
			}
			if call, ok := e.(*ast.CallExpr); ok && reflectName(typeutil.Callee(info, call)) == "Value.UnsafePointer" {
				return false // reflect's capability, reported as such
			}
			c.report(authority.Unsafe, e, "a value of type unsafe.Pointer")
			return false
		})
	}
}

// importsUnsafe reports whether f imports unsafe other than blank.
func importsUnsafe(f *ast.File) bool {
	for _, imp := range f.Imports {
		if imp.Path.Value == `"unsafe"` && (imp.Name == nil || imp.Name.Name != "_") {
			return true
		}
	}
	return false
}

func isUnsafePointer(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.UnsafePointer
}
