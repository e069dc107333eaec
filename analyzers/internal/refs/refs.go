// Package refs finds the references a package makes to forbidden
// declarations, by type rather than by name: through renamed and dot
// imports, method values, embedded fields, aliases, generic instantiation,
// values obtained through the API of another package, types of other
// packages that hold forbidden ones, and interfaces that carry forbidden
// methods.
package refs

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"

	"telha.dev/analyzers/internal/rule"
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

// Check reports, in source order, the identifiers of the package that
//   - refer to a forbidden object;
//   - refer to a function, variable or field of another package whose
//     declared type carries a forbidden type (a function returning it, a
//     variable or field of it), or to an alias of a forbidden type, so
//     that a value of a forbidden type is obtained without naming it; a
//     type that merely holds one, named in a declaration, obtains nothing
//     and is not reported (what is done with its values is);
//   - instantiate a generic function or type with a type argument whose
//     forbidden methods satisfy the constraint, so that the generic code
//     calls them;
//
// one finding per line: a line is what a reader fixes. A rule that is
// also a Coverer does not get the identifiers it covers reported.
func Check(p *rule.Pass, r Rule) {
	info := p.TypesInfo
	finder := NewFinder(p, r)
	covered, _ := r.(Coverer)
	lines := make(map[token.Position]bool)
	report := func(id *ast.Ident, advice, format string, args ...any) {
		posn := p.Fset.Position(id.Pos())
		line := token.Position{Filename: posn.Filename, Line: posn.Line}
		if lines[line] {
			return
		}
		lines[line] = true
		p.Reportf(id, advice, format, args...)
	}
	for id := range inspector.All[*ast.Ident](p.Inspector) {
		obj := info.Uses[id]
		if obj == nil || obj.Pkg() == nil {
			continue // not a use, or a universe object
		}
		if _, ok := obj.(*types.PkgName); ok {
			continue // the qualified identifier is checked on its own
		}
		if covered != nil && covered.Covers(id) {
			continue
		}
		obj = origin(obj)
		if len(info.Instances) > 0 {
			if inst, ok := info.Instances[id]; ok {
				if found, arg := instanceReaching(obj, inst, r); found != nil {
					what, advice := r.Describe(found)
					report(id, advice, "%s instantiated with %s calls %s %s through its constraint", Name(obj), TypeString(arg), what, Name(found))
					continue
				}
			}
		}
		if obj.Pkg() == p.Pkg {
			continue // its declaration is checked where its type is written
		}
		if r.Match(obj) {
			what, advice := r.Describe(obj)
			report(id, advice, "%s %s used", what, Name(obj))
			continue
		}
		if tn, ok := obj.(*types.TypeName); ok && !aliasOf(tn, r) {
			continue
		}
		if tn := finder.Find(obj.Type()); tn != nil {
			what, advice := r.Describe(tn)
			report(id, advice, "%s carries %s %s", Name(obj), what, Name(tn))
		}
	}
}

// aliasOf reports whether tn is an alias of a forbidden type, or of a
// pointer to one: another name for it, whose every use names it.
func aliasOf(tn *types.TypeName, r Rule) bool {
	if !tn.IsAlias() {
		return false
	}
	t := types.Unalias(tn.Type())
	if ptr, ok := t.(*types.Pointer); ok {
		t = types.Unalias(ptr.Elem())
	}
	named, ok := t.(*types.Named)
	return ok && r.Match(named.Origin().Obj())
}

// A Coverer is a Rule that covers some uses itself, so that Check does not
// report them: a rule that reports an import covers the uses of what the
// file imports.
type Coverer interface {
	Covers(id *ast.Ident) bool
}

// instanceReaching returns the forbidden method through which the
// instantiation inst of the generic obj reaches a type argument's method
// by its constraint, and that type argument, or nil.
func instanceReaching(obj types.Object, inst types.Instance, r Rule) (types.Object, types.Type) {
	tparams := typeParams(obj)
	for i := range inst.TypeArgs.Len() {
		arg := inst.TypeArgs.At(i)
		if i >= tparams.Len() {
			continue
		}
		constraint, ok := tparams.At(i).Constraint().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		if found := implementing(arg, constraint, r); found != nil {
			return found, arg
		}
	}
	return nil, nil
}

// implementing returns the first forbidden method with which t implements
// a method of iface, or nil.
func implementing(t types.Type, iface *types.Interface, r Rule) types.Object {
	for i := range iface.NumMethods() {
		m := iface.Method(i)
		found, _, _ := types.LookupFieldOrMethod(t, true, m.Pkg(), m.Name())
		if found != nil && r.Match(origin(found)) {
			return origin(found)
		}
	}
	return nil
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
