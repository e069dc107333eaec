// Package refs finds the references a package makes to forbidden
// declarations, by type rather than by name: through renamed and dot
// imports, method values, embedded fields, aliases, generic instantiation,
// and values obtained through the API of another package.
package refs

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"
)

// A Matcher recognizes forbidden declarations.
type Matcher interface {
	// Match reports whether obj, an origin object (not an instance), is
	// forbidden.
	Match(obj types.Object) bool
}

// A Rule is a Matcher that can also describe what it forbids.
type Rule interface {
	Matcher
	// Describe returns what the forbidden obj is ("raw engine binding",
	// "system-restricted") and the advice on what to use instead.
	Describe(obj types.Object) (what, advice string)
}

// Check reports, in source order, every identifier of the package that
//   - refers to a forbidden object;
//   - refers to an object of another package whose declared type carries a
//     forbidden type (a function returning it, a variable, field or alias
//     of it), so that a value of a forbidden type is obtained without
//     naming it;
//   - instantiates a generic function or type with a type argument whose
//     forbidden methods satisfy the constraint, so that the generic code
//     calls them.
func Check(pass *analysis.Pass, insp *inspector.Inspector, rule Rule) {
	info := pass.TypesInfo
	for id := range inspector.All[*ast.Ident](insp) {
		obj := info.Uses[id]
		if obj == nil || obj.Pkg() == nil {
			continue // not a use, or a universe object
		}
		if _, ok := obj.(*types.PkgName); ok {
			continue // the qualified identifier is checked on its own
		}
		obj = origin(obj)
		if len(info.Instances) > 0 {
			if inst, ok := info.Instances[id]; ok {
				checkInstance(pass, id, obj, inst, rule)
			}
		}
		if obj.Pkg() == pass.Pkg {
			continue // its declaration is checked where its type is written
		}
		if rule.Match(obj) {
			what, advice := rule.Describe(obj)
			pass.ReportRangef(id, "%s %s used outside the key authority; %s", what, Name(obj), advice)
			continue
		}
		if tn := Find(obj.Type(), rule); tn != nil {
			what, advice := rule.Describe(tn)
			pass.ReportRangef(id, "%s carries %s %s outside the key authority; %s", Name(obj), what, Name(tn), advice)
		}
	}
}

// checkInstance reports the instantiation inst of the generic obj at id if
// a type argument satisfies a method of its constraint with a forbidden
// method. A type argument that carries a forbidden type itself is not
// reported: it was reported where it was written or obtained.
func checkInstance(pass *analysis.Pass, id *ast.Ident, obj types.Object, inst types.Instance, rule Rule) {
	tparams := typeParams(obj)
	for i := range inst.TypeArgs.Len() {
		arg := inst.TypeArgs.At(i)
		if i >= tparams.Len() || Find(arg, rule) != nil {
			continue
		}
		constraint, ok := tparams.At(i).Constraint().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		for j := range constraint.NumMethods() {
			m := constraint.Method(j)
			found, _, _ := types.LookupFieldOrMethod(arg, true, m.Pkg(), m.Name())
			if found == nil || !rule.Match(origin(found)) {
				continue
			}
			what, advice := rule.Describe(origin(found))
			pass.ReportRangef(id, "%s instantiated with %s calls %s %s through its constraint outside the key authority; %s",
				Name(obj), TypeString(arg), what, Name(origin(found)), advice)
			return
		}
	}
}

// typeParams returns the type parameters of a generic function or type.
func typeParams(obj types.Object) *types.TypeParamList {
	switch t := obj.Type().(type) {
	case *types.Signature:
		return t.TypeParams()
	case *types.Named:
		return t.TypeParams()
	case *types.Alias:
		return t.TypeParams()
	}
	return nil
}

// origin returns the generic declaration of a function, method or field of
// an instantiated type, and obj itself otherwise.
func origin(obj types.Object) types.Object {
	switch obj := obj.(type) {
	case *types.Func:
		return obj.Origin()
	case *types.Var:
		return obj.Origin()
	}
	return obj
}

// Find returns the first forbidden type name in t: t itself, its element,
// key, field, parameter and result types, and the type arguments of the
// named types it mentions, without looking into the definition of a named
// type that is not forbidden.
func Find(t types.Type, m Matcher) *types.TypeName {
	switch t := t.(type) {
	case *types.Alias:
		if m.Match(t.Obj()) {
			return t.Obj()
		}
		return Find(types.Unalias(t), m)
	case *types.Named:
		if m.Match(t.Origin().Obj()) {
			return t.Origin().Obj()
		}
		return findList(t.TypeArgs(), m)
	case *types.Pointer:
		return Find(t.Elem(), m)
	case *types.Slice:
		return Find(t.Elem(), m)
	case *types.Array:
		return Find(t.Elem(), m)
	case *types.Chan:
		return Find(t.Elem(), m)
	case *types.Map:
		if tn := Find(t.Key(), m); tn != nil {
			return tn
		}
		return Find(t.Elem(), m)
	case *types.Signature:
		if tn := findTuple(t.Params(), m); tn != nil {
			return tn
		}
		return findTuple(t.Results(), m)
	case *types.Tuple:
		return findTuple(t, m)
	case *types.Struct:
		for i := range t.NumFields() {
			if tn := Find(t.Field(i).Type(), m); tn != nil {
				return tn
			}
		}
	case *types.Interface:
		for i := range t.NumExplicitMethods() {
			if tn := Find(t.ExplicitMethod(i).Type(), m); tn != nil {
				return tn
			}
		}
		for i := range t.NumEmbeddeds() {
			if tn := Find(t.EmbeddedType(i), m); tn != nil {
				return tn
			}
		}
	case *types.Union:
		for i := range t.Len() {
			if tn := Find(t.Term(i).Type(), m); tn != nil {
				return tn
			}
		}
	}
	return nil
}

func findList(list *types.TypeList, m Matcher) *types.TypeName {
	for i := range list.Len() {
		if tn := Find(list.At(i), m); tn != nil {
			return tn
		}
	}
	return nil
}

func findTuple(tuple *types.Tuple, m Matcher) *types.TypeName {
	for i := range tuple.Len() {
		if tn := Find(tuple.At(i).Type(), m); tn != nil {
			return tn
		}
	}
	return nil
}

// Name returns obj qualified by its package name, and a method also by its
// receiver type: "grocksdb.NewIterator", "storage.Key.View".
func Name(obj types.Object) string {
	if fn, ok := obj.(*types.Func); ok {
		if recv := fn.Signature().Recv(); recv != nil {
			t := recv.Type()
			if ptr, ok := t.(*types.Pointer); ok {
				t = ptr.Elem()
			}
			return fmt.Sprintf("%s.%s", TypeString(t), fn.Name())
		}
	}
	return obj.Pkg().Name() + "." + obj.Name()
}

// TypeString returns t with package members qualified by package name.
func TypeString(t types.Type) string {
	return types.TypeString(t, (*types.Package).Name)
}
