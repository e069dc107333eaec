package systemscope

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ast/inspector"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/marks"
	"telha.dev/analyzers/internal/refs"
	"telha.dev/analyzers/internal/rule"
)

// Reexport is the fact that a declaration of a package a facade admits
// hands on what it got from the facade, which the facade's reexport= list
// allows: only the packages of those modules may use the declaration.
type Reexport struct {
	Facade   string   // the facade's import path
	Admitted []string // the modules its reexport= names
}

// AFact marks Reexport as an analysis fact.
func (*Reexport) AFact() {}

func (r *Reexport) String() string {
	return "reexports " + r.Facade + " to " + strings.Join(r.Admitted, ",")
}

// checkEscapes reports, in a package that facades admit, what it hands on
// from them to packages they do not admit: a facade's capability is for
// the packages it names, and a re-exported value would carry it anywhere.
// For each facade the package imports and that admits it, it reports
//   - an exported declaration whose type holds a type of the facade (a
//     var, const, func or method signature, an alias or defined type, an
//     exported field or interface method of an exported type), or whose
//     value is taken from the facade (var Sweep = jobqueue.SweepLeases);
//   - a function or method of the facade taken as a value other than
//     into a local or blank variable, or as an argument to the facade;
//   - a value whose type holds a type of the facade, or such a function
//     value, handed to another package: assigned to its variables or
//     fields (a hook filled in init), passed to its functions (other than
//     the standard library's), or returned as another type from an
//     exported function.
//
// If the facade names reexport= modules, the exported declarations are
// allowed and get a Reexport fact instead, and the packages outside those
// modules that use them are reported (checkReexports).
func checkEscapes(p *rule.Pass) {
	importer := marks.PackageOf(p.Pass)
	for _, imp := range p.Pkg.Imports() {
		facade := p.Marks.FacadeOf(imp)
		if facade == nil || !facade.Admits(importer) {
			continue
		}
		e := &escapes{p: p, facade: imp, fact: facade, capable: make(map[*types.Named]bool)}
		e.authority = refs.NewFinder(p, matcher(func(obj types.Object) bool {
			return obj.Pkg() != nil && obj.Pkg() != imp && p.Marks.InAuthority(obj.Pkg())
		}))
		e.exported()
		e.values()
		e.handedOn()
	}
}

// escapes checks what one package hands on from one facade.
type escapes struct {
	p         *rule.Pass
	facade    *types.Package
	fact      *marks.Facade
	capable   map[*types.Named]bool // the facade's types, by whether they carry its capability
	authority *refs.Finder          // finds the types of the authority but the facade's own
}

type matcher func(types.Object) bool

func (m matcher) Match(obj types.Object) bool { return m(obj) }

// report reports an escape at rng.
func (e *escapes) report(rng analysis.Range, format string, args ...any) {
	e.p.Reportf(rng, "keep what the facade gives inside "+e.fact.Users()+", or name the module that needs it in the facade's reexport= list",
		format+", which facade %q exists for %s only,", append(args, e.facade.Path(), e.fact.Users())...)
}

// exported checks the exported declarations of the package.
func (e *escapes) exported() {
	info := e.p.TypesInfo
	check := func(name *ast.Ident, t types.Type, value ast.Expr) {
		if !name.IsExported() {
			return
		}
		obj := info.Defs[name]
		if obj == nil {
			return
		}
		held := e.exposed(t)
		from := e.valueFrom(value)
		if held == nil && from == nil {
			return
		}
		if len(e.fact.Reexport) > 0 {
			e.p.ExportObjectFact(obj, &Reexport{Facade: e.facade.Path(), Admitted: e.fact.Reexport})
			return
		}
		if held != nil {
			e.report(name, "exported %s holds %s", name.Name, refs.Name(held))
		} else {
			e.report(name, "exported %s is %s", name.Name, refs.Name(from))
		}
	}
	for _, f := range e.p.Files {
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if fn, ok := info.Defs[decl.Name].(*types.Func); ok {
					check(decl.Name, fn.Type(), nil)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						for i, name := range spec.Names {
							var value ast.Expr
							if i < len(spec.Values) {
								value = spec.Values[i]
							}
							if obj := info.Defs[name]; obj != nil {
								check(name, obj.Type(), value)
							}
						}
					case *ast.TypeSpec:
						e.typeSpec(spec, check)
					}
				}
			}
		}
	}
}

// exposed returns the first type of the facade that carries its capability
// and that a value of type t lets its holder reach, or nil: t itself, its
// elements, parameters and results, the exported fields of its structs,
// the type arguments and definitions of its named types.
func (e *escapes) exposed(t types.Type) *types.TypeName {
	return e.reach(t, make(map[types.Type]bool))
}

func (e *escapes) reach(t types.Type, seen map[types.Type]bool) *types.TypeName {
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		obj := t.Origin().Obj()
		if obj.Pkg() == e.facade {
			if e.carries(t.Origin()) {
				return obj
			}
			return nil
		}
		for i := range t.TypeArgs().Len() {
			if tn := e.reach(t.TypeArgs().At(i), seen); tn != nil {
				return tn
			}
		}
		if obj.Pkg() != nil && e.p.Marks.InAuthority(obj.Pkg()) {
			return nil
		}
		return e.reach(t.Underlying(), seen)
	case *types.Pointer:
		return e.reach(t.Elem(), seen)
	case *types.Slice:
		return e.reach(t.Elem(), seen)
	case *types.Array:
		return e.reach(t.Elem(), seen)
	case *types.Chan:
		return e.reach(t.Elem(), seen)
	case *types.Map:
		if tn := e.reach(t.Key(), seen); tn != nil {
			return tn
		}
		return e.reach(t.Elem(), seen)
	case *types.Signature:
		for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tuple.Len() {
				if tn := e.reach(tuple.At(i).Type(), seen); tn != nil {
					return tn
				}
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if f := t.Field(i); f.Exported() {
				if tn := e.reach(f.Type(), seen); tn != nil {
					return tn
				}
			}
		}
	case *types.Interface:
		for i := range t.NumMethods() {
			if tn := e.reach(t.Method(i).Type(), seen); tn != nil {
				return tn
			}
		}
	}
	return nil
}

// carries reports whether a type of the facade carries its capability,
// rather than being data the facade returns: an interface, a func type, a
// struct with hidden state (an unexported field: a secret, an engine), or
// a type with an exported method whose signature takes or returns a type
// of the authority, other than the facade's own, or a func (Entry.Ranges,
// which rebuilds ranges). A record of
// exported fields, an enumeration with String and Valid, an error type,
// are data.
func (e *escapes) carries(t *types.Named) bool {
	if c, ok := e.capable[t]; ok {
		return c
	}
	e.capable[t] = false // a recursive type carries nothing through itself
	c := false
	switch u := t.Underlying().(type) {
	case *types.Interface, *types.Signature:
		c = true
	case *types.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			if !f.Exported() || e.exposed(f.Type()) != nil {
				c = true
			}
		}
	}
	for _, recv := range []types.Type{t, types.NewPointer(t)} {
		mset := types.NewMethodSet(recv)
		for i := range mset.Len() {
			m := mset.At(i).Obj()
			sig := m.Type().(*types.Signature)
			if m.Exported() && (e.authority.Find(sig) != nil || mentionsFunc(sig)) {
				c = true
			}
		}
	}
	e.capable[t] = c
	return c
}

// mentionsFunc reports whether a signature takes or returns a func.
func mentionsFunc(sig *types.Signature) bool {
	for _, tuple := range []*types.Tuple{sig.Params(), sig.Results()} {
		for i := range tuple.Len() {
			if _, ok := tuple.At(i).Type().Underlying().(*types.Signature); ok {
				return true
			}
		}
	}
	return false
}

// typeSpec checks an exported type: its exported fields and interface
// methods, or for another type, the type itself.
func (e *escapes) typeSpec(spec *ast.TypeSpec, check func(*ast.Ident, types.Type, ast.Expr)) {
	if !spec.Name.IsExported() {
		return
	}
	info := e.p.TypesInfo
	var fields *ast.FieldList
	switch t := spec.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	}
	if fields == nil || spec.Assign.IsValid() {
		if obj := info.Defs[spec.Name]; obj != nil {
			check(spec.Name, obj.Type().Underlying(), nil)
			if named, ok := types.Unalias(obj.Type()).(*types.Named); ok && spec.Assign.IsValid() {
				check(spec.Name, named, nil) // an alias of a facade type
			}
		}
		return
	}
	for _, field := range fields.List {
		t := info.TypeOf(field.Type)
		if len(field.Names) == 0 { // embedded: named by its type
			if id := embeddedName(field.Type); id != nil {
				check(id, t, nil)
			}
			continue
		}
		for _, name := range field.Names {
			check(name, t, nil)
		}
	}
}

// embeddedName returns the identifier that names an embedded field.
func embeddedName(t ast.Expr) *ast.Ident {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.SelectorExpr:
			return x.Sel
		case *ast.Ident:
			return x
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		default:
			return nil
		}
	}
}

// valueFrom returns the declaration of the facade that expression e takes
// as a value, not as a call's function: a function, a method value, a
// variable or a constant.
func (e *escapes) valueFrom(x ast.Expr) types.Object {
	if x == nil {
		return nil
	}
	var from types.Object
	ast.Inspect(x, func(n ast.Node) bool {
		if from != nil {
			return false
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			// The function called is not a value; its arguments are.
			for _, arg := range n.Args {
				if from == nil {
					from = e.valueFrom(arg)
				}
			}
			if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok {
				if from == nil {
					from = e.valueFrom(sel.X)
				}
			}
			return false
		case *ast.FuncLit:
			return false // its body runs in this package: a wrapper, the package's own API
		case *ast.Ident:
			switch obj := e.p.TypesInfo.Uses[n].(type) {
			case *types.Func:
				if obj.Pkg() == e.facade {
					from = obj
				}
			case *types.Var, *types.Const:
				if obj.Pkg() == e.facade && e.exposed(obj.Type()) != nil {
					from = obj
				}
			}
		}
		return true
	})
	return from
}

// values reports the functions and methods of the facade taken as values,
// but into a local or blank variable or as an argument to the facade.
func (e *escapes) values() {
	info := e.p.TypesInfo
	e.p.Inspector.WithStack([]ast.Node{(*ast.Ident)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		id := n.(*ast.Ident)
		fn, ok := info.Uses[id].(*types.Func)
		if !ok || fn.Pkg() != e.facade {
			return true
		}
		if len(e.fact.Reexport) > 0 || e.calledOrKept(id, stack) {
			return true
		}
		e.report(id, "%s taken as a value", refs.Name(fn))
		return true
	})
}

// calledOrKept reports whether the function id names is called there, or
// kept in the package: into a local or blank variable, or passed to a
// function of the facade.
func (e *escapes) calledOrKept(id *ast.Ident, stack []ast.Node) bool {
	expr := ast.Node(id)
	i := len(stack) - 2
	if i >= 0 {
		if sel, ok := stack[i].(*ast.SelectorExpr); ok && sel.Sel == id {
			expr, i = sel, i-1
		}
	}
	for ; i >= 0; i-- {
		if _, ok := stack[i].(*ast.ParenExpr); !ok {
			break
		}
		expr = stack[i]
	}
	if i < 0 {
		return false
	}
	switch parent := stack[i].(type) {
	case *ast.CallExpr:
		if parent.Fun == expr {
			return true
		}
		if fn, ok := e.p.TypesInfo.Uses[funcIdent(parent.Fun)].(*types.Func); ok && fn.Pkg() == e.facade {
			return true
		}
	case *ast.AssignStmt:
		for j, rhs := range parent.Rhs {
			if rhs == expr && j < len(parent.Lhs) {
				return e.localOrBlank(parent.Lhs[j])
			}
		}
	case *ast.ValueSpec:
		for j, v := range parent.Values {
			if v == expr && j < len(parent.Names) {
				return e.localOrBlank(parent.Names[j])
			}
		}
	}
	return false
}

// localOrBlank reports whether lhs is the blank identifier or a variable
// local to a function.
func (e *escapes) localOrBlank(lhs ast.Expr) bool {
	id, ok := ast.Unparen(lhs).(*ast.Ident)
	if !ok {
		return false
	}
	if id.Name == "_" {
		return true
	}
	v, ok := e.p.TypesInfo.ObjectOf(id).(*types.Var)
	return ok && v.Parent() != nil && v.Parent() != e.p.Pkg.Scope()
}

// funcIdent returns the identifier naming the function of a call's
// function expression, or nil.
func funcIdent(fun ast.Expr) *ast.Ident {
	switch x := ast.Unparen(fun).(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	}
	return nil
}

// handedOn reports the values of the facade's types handed to other
// packages: assigned to their variables and fields, passed to their
// functions (not the standard library's), or returned as another type
// from an exported function.
func (e *escapes) handedOn() {
	if len(e.fact.Reexport) > 0 {
		return // checked where the reexport's users are
	}
	info := e.p.TypesInfo
	holds := func(x ast.Expr) bool {
		t := info.TypeOf(x)
		return t != nil && e.exposed(t) != nil
	}
	foreign := func(obj types.Object) bool {
		return obj != nil && obj.Pkg() != nil && obj.Pkg() != e.p.Pkg && obj.Pkg() != e.facade
	}
	for n := range inspector.All[*ast.AssignStmt](e.p.Inspector) {
		if len(n.Lhs) != len(n.Rhs) {
			continue
		}
		for i, lhs := range n.Lhs {
			if target := assigned(info, lhs); foreign(target) && holds(n.Rhs[i]) {
				e.report(n.Rhs[i], "%s handed to %s", refs.TypeString(info.TypeOf(n.Rhs[i])), refs.Name(target))
			}
		}
	}
	for call := range inspector.All[*ast.CallExpr](e.p.Inspector) {
		fn, ok := info.Uses[funcIdent(call.Fun)].(*types.Func)
		if !ok || !foreign(fn) || !strings.Contains(fn.Pkg().Path(), ".") {
			continue // a builtin, this package's, the facade's, or the standard library's
		}
		for _, arg := range call.Args {
			if holds(arg) {
				e.report(arg, "%s passed to %s", refs.TypeString(info.TypeOf(arg)), refs.Name(fn))
			}
		}
	}
	e.p.Inspector.WithStack([]ast.Node{(*ast.ReturnStmt)(nil)}, func(n ast.Node, push bool, stack []ast.Node) bool {
		if !push {
			return true
		}
		decl, ok := enclosingFunc(stack).(*ast.FuncDecl)
		if !ok || !decl.Name.IsExported() {
			return true
		}
		fn, ok := info.Defs[decl.Name].(*types.Func)
		if !ok {
			return true
		}
		results := fn.Signature().Results()
		for i, r := range n.(*ast.ReturnStmt).Results {
			// A result declared with the facade's type is reported with the
			// declaration; one converted to another type escapes here.
			if holds(r) && i < results.Len() && e.exposed(results.At(i).Type()) == nil {
				e.report(r, "%s returned by exported %s", refs.TypeString(info.TypeOf(r)), decl.Name.Name)
			}
		}
		return true
	})
}

// assigned returns the variable or field that an assignment's left-hand
// side sets.
func assigned(info *types.Info, lhs ast.Expr) types.Object {
	switch x := ast.Unparen(lhs).(type) {
	case *ast.Ident:
		return info.ObjectOf(x)
	case *ast.SelectorExpr:
		return info.ObjectOf(x.Sel)
	}
	return nil
}

// enclosingFunc returns the innermost function around the top of stack.
func enclosingFunc(stack []ast.Node) ast.Node {
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return stack[i]
		}
	}
	return nil
}

// checkReexports reports the uses, in a package that the facades do not
// admit, of declarations that re-export what a facade gives to modules
// other than the package's.
func checkReexports(p *rule.Pass) {
	importer := marks.PackageOf(p.Pass)
	module := ""
	if m, ok := authority.Default.ModuleOf(importer.Home()); ok && authority.Default.Holds(m.Path, true, importer, p.Marks.Root()) {
		module = m.Path
	}
	seen := make(map[token.Position]bool)
	for id := range inspector.All[*ast.Ident](p.Inspector) {
		obj := p.TypesInfo.Uses[id]
		if obj == nil || obj.Pkg() == nil || obj.Pkg() == p.Pkg {
			continue
		}
		var fact Reexport
		if !p.ImportObjectFact(obj, &fact) || module != "" && slices.Contains(fact.Admitted, module) {
			continue
		}
		if f := p.Marks.FacadeOfPath(fact.Facade); f != nil && f.Admits(importer) {
			continue
		}
		posn := p.Fset.Position(id.Pos())
		if line := (token.Position{Filename: posn.Filename, Line: posn.Line}); !seen[line] {
			seen[line] = true
			p.Reportf(id, "use the API of "+strings.Join(fact.Admitted, " or ")+", or name this module in the reexport= list of facade "+fact.Facade,
				"%s re-exports what facade %q gives, for %s only,", refs.Name(obj), fact.Facade, strings.Join(fact.Admitted, " or "))
		}
	}
}
