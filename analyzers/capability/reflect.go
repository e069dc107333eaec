package capability

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/inspector"
	"golang.org/x/tools/go/types/typeutil"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/flow"
)

// aliasing are the declarations of reflect that alias memory: what they
// return or take is a pointer that the type system does not check.
var aliasing = []string{"NewAt", "SliceHeader", "StringHeader", "Value.UnsafePointer", "Value.UnsafeAddr"}

// fieldAliasing are the methods of reflect.Value that alias (Bytes) or
// write (Clear) the memory of the value without the check of its
// read-only flag that reflect's other writes make: on a value reached
// through a struct field, they alias or write another package's unexported
// fields.
var fieldAliasing = []string{"Value.Bytes", "Value.Clear"}

// fieldLookups reach a struct field of a reflect.Value.
var fieldLookups = []string{"Value.Field", "Value.FieldByName", "Value.FieldByIndex", "Value.FieldByIndexErr", "Value.FieldByNameFunc"}

// methodCalls run a method value.
var methodCalls = []string{"Value.Call", "Value.CallSlice", "Value.Interface"}

// methodLookups look a method up by name or index and return it bound to
// its receiver (Value's) or as a function of it (Type's, through the Func
// field of the reflect.Method they return).
var methodLookups = []string{"Value.Method", "Value.MethodByName", "Type.Method", "Type.MethodByName"}

// reflection reports the uses of reflect that forge or alias memory, or
// call a method that no analysis can follow.
func (c *checker) reflection() {
	if !imports(c.p.Pkg, "reflect") {
		return
	}
	w := &walker{info: c.p.TypesInfo, defs: flow.Definitions(c.p.TypesInfo, c.p.Files)}
	for id := range inspector.All[*ast.Ident](c.p.Inspector) {
		if name := reflectName(c.p.TypesInfo.Uses[id]); slices.Contains(aliasing, name) {
			c.report(authority.Reflect, id, "reflect.%s", name)
		}
	}
	for sel := range inspector.All[*ast.SelectorExpr](c.p.Inspector) {
		name := reflectName(c.p.TypesInfo.Uses[sel.Sel])
		switch {
		case slices.Contains(methodCalls, name):
			if w.reaches(sel.X, w.isMethodLookup) {
				c.report(authority.Reflect, sel.Sel, "reflect.%s of a method looked up by name or index", name)
			}
		case slices.Contains(fieldAliasing, name):
			switch {
			case w.reaches(sel.X, w.isFieldLookup) && !w.ownValue(sel.X, c.p.Pkg):
				c.report(authority.Reflect, sel.Sel, "reflect.%s on a value reached through a struct field", name)
			case w.reaches(sel.X, w.isFromElsewhere):
				c.report(authority.Reflect, sel.Sel, "reflect.%s on a value from elsewhere (a parameter, another function's result), which a struct field may have reached", name)
			}
		}
	}
}

// imports reports whether pkg imports the package at path.
func imports(pkg *types.Package, path string) bool {
	for _, imp := range pkg.Imports() {
		if imp.Path() == path {
			return true
		}
	}
	return false
}

// reflectName names a declaration of package reflect as "NewAt" or
// "Value.Bytes", or returns "".
func reflectName(obj types.Object) string {
	if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != "reflect" {
		return ""
	}
	if fn, ok := obj.(*types.Func); ok {
		if recv := fn.Signature().Recv(); recv != nil {
			t := recv.Type()
			if ptr, ok := t.(*types.Pointer); ok {
				t = ptr.Elem()
			}
			if named, ok := types.Unalias(t).(*types.Named); ok {
				return named.Obj().Name() + "." + fn.Name()
			}
			if _, ok := t.Underlying().(*types.Interface); ok {
				return "Type." + fn.Name() // a method of the interface reflect.Type
			}
		}
	}
	return obj.Name()
}

// A walker follows where a reflect.Value comes from, within the package:
// through the methods of reflect.Value and reflect.Type that return
// another Value (or a reflect.Method, whose Func is one), reflect.Indirect,
// append, slice elements and local variables.
type walker struct {
	info *types.Info
	defs map[*types.Var][]ast.Expr
}

// reaches reports whether match accepts e or an expression e's value may
// come from.
func (w *walker) reaches(e ast.Expr, match func(ast.Expr) bool) bool {
	found := false
	w.walk(e, make(map[ast.Expr]bool), func(x ast.Expr) {
		if !found && match(x) {
			found = true
		}
	})
	return found
}

// walk calls visit for e and every expression e's value may come from.
func (w *walker) walk(e ast.Expr, seen map[ast.Expr]bool, visit func(ast.Expr)) {
	e = ast.Unparen(e)
	if seen[e] {
		return
	}
	seen[e] = true
	visit(e)
	switch x := e.(type) {
	case *ast.CallExpr:
		if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
			if b, ok := w.info.Uses[id].(*types.Builtin); ok && b.Name() == "append" {
				for _, arg := range x.Args {
					w.walk(arg, seen, visit)
				}
				return
			}
		}
		switch name := reflectName(typeutil.Callee(w.info, x)); {
		case name == "Indirect" && len(x.Args) == 1:
			w.walk(x.Args[0], seen, visit)
		case isMethodName(name):
			if sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr); ok {
				w.walk(sel.X, seen, visit)
			}
		}
	case *ast.SelectorExpr:
		if isReflect(w.info.TypeOf(x.X), "Method") {
			w.walk(x.X, seen, visit) // the Func of a reflect.Method
		}
	case *ast.IndexExpr:
		w.walk(x.X, seen, visit)
	case *ast.Ident:
		if v, ok := w.info.Uses[x].(*types.Var); ok {
			for _, def := range w.defs[v] {
				w.walk(def, seen, visit)
			}
		}
	}
}

// isMethodLookup reports whether e looks a method up by name or index.
func (w *walker) isMethodLookup(e ast.Expr) bool {
	return w.calls(e, methodLookups)
}

// isFieldLookup reports whether e reaches a struct field of a Value.
func (w *walker) isFieldLookup(e ast.Expr) bool {
	return w.calls(e, fieldLookups)
}

// isFromElsewhere reports whether e is a Value that the walk cannot follow
// to where it was made: a call of a function other than reflect's (a
// helper returning v.Field(i)), a parameter or variable set elsewhere, a
// struct field, a pointer's target, a value received or asserted.
// Aliasing or clearing such a value is the capability wherever it came
// from, since a helper one call away would otherwise hide the field.
func (w *walker) isFromElsewhere(e ast.Expr) bool {
	if !isReflect(w.info.TypeOf(e), "Value") {
		return false
	}
	switch x := e.(type) {
	case *ast.CallExpr:
		return reflectName(typeutil.Callee(w.info, x)) == "" && !isAppend(w.info, x)
	case *ast.Ident:
		v, ok := w.info.Uses[x].(*types.Var)
		return ok && len(w.defs[v]) == 0
	case *ast.SelectorExpr:
		sel, ok := w.info.Selections[x]
		return ok && sel.Kind() == types.FieldVal && !isReflect(w.info.TypeOf(x.X), "Method")
	case *ast.StarExpr, *ast.UnaryExpr, *ast.TypeAssertExpr:
		return true
	}
	return false
}

// calls reports whether e is a call of one of the reflect declarations
// names.
func (w *walker) calls(e ast.Expr, names []string) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	return slices.Contains(names, reflectName(typeutil.Callee(w.info, call)))
}

// isMethodName reports whether a name of reflectName is a method's.
func isMethodName(name string) bool { return strings.Contains(name, ".") }

// ownValue reports whether every value e may come from started as
// reflect.ValueOf of a value of a concrete type of its own package that
// holds no other package's struct with unexported fields, nor an
// interface: then the fields that e reaches are the package's own.
func (w *walker) ownValue(e ast.Expr, pkg *types.Package) bool {
	own := true
	w.walk(e, make(map[ast.Expr]bool), func(x ast.Expr) {
		switch x := x.(type) {
		case *ast.CallExpr:
			switch name := reflectName(typeutil.Callee(w.info, x)); {
			case name == "ValueOf" && len(x.Args) == 1:
				if holdsForeign(w.info.TypeOf(x.Args[0]), pkg, make(map[types.Type]bool)) {
					own = false
				}
			case isMethodName(name), name == "Indirect":
				// followed by walk
			default:
				if !isAppend(w.info, x) {
					own = false // a Value from elsewhere
				}
			}
		case *ast.Ident:
			if v, ok := w.info.Uses[x].(*types.Var); ok && len(w.defs[v]) == 0 {
				own = false // a parameter or a variable set elsewhere
			}
		}
	})
	return own
}

func isAppend(info *types.Info, call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	return ok && b.Name() == "append"
}

// holdsForeign reports whether a value of type t may hold a struct of
// another package than pkg with unexported fields, or a value of unknown
// type (an interface, a type parameter).
func holdsForeign(t types.Type, pkg *types.Package, seen map[types.Type]bool) bool {
	if t == nil || seen[t] {
		return t == nil
	}
	seen[t] = true
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		if st, ok := t.Underlying().(*types.Struct); ok && t.Obj().Pkg() != pkg {
			for i := range st.NumFields() {
				if !st.Field(i).Exported() {
					return true
				}
			}
		}
		return holdsForeign(t.Underlying(), pkg, seen)
	case *types.Pointer:
		return holdsForeign(t.Elem(), pkg, seen)
	case *types.Slice:
		return holdsForeign(t.Elem(), pkg, seen)
	case *types.Array:
		return holdsForeign(t.Elem(), pkg, seen)
	case *types.Chan:
		return holdsForeign(t.Elem(), pkg, seen)
	case *types.Map:
		return holdsForeign(t.Key(), pkg, seen) || holdsForeign(t.Elem(), pkg, seen)
	case *types.Struct:
		for i := range t.NumFields() {
			if holdsForeign(t.Field(i).Type(), pkg, seen) {
				return true
			}
		}
	case *types.Interface, *types.TypeParam:
		return true
	}
	return false
}

// isReflect reports whether t is the named type reflect.name.
func isReflect(t types.Type, name string) bool {
	named, ok := types.Unalias(t).(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "reflect" && named.Obj().Name() == name
}
