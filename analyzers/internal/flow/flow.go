// Package flow finds where values and types reach reflect and unsafe: the
// calls of reflect.ValueOf, reflect.TypeOf and reflect.TypeFor, and the
// conversions to and from unsafe.Pointer, directly or through functions
// that pass their parameters on to them.
//
// Within a function it follows values through local and package-level
// variables (assignments, declarations, range, type switches) back to
// where they were made, and to the function's parameters. A function
// that passes a parameter or a type parameter on to a sink gets a Passes
// fact, so that its callers, in this package or another, see the sink at
// the call, and so that a generic helper instantiated with a type sees it
// at the instantiation. The standard library is not followed: its
// reflection (fmt, encoding/json) reads values, it does not hand out
// their methods and fields. Nor is the authority: what it does with its
// own values is what the rules protect, not a bypass of them, so its
// functions get no Passes fact and its callers see no sink.
//
// Out of reach: values that travel through struct fields, maps, slices or
// channels of interface type, through results of interface type, through
// calls of func values and interface methods, and reflect functions used
// as values.
package flow

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/marks"
)

// A Sink is a place where values or types reach reflect or unsafe.
type Sink struct {
	Node ast.Node // the call or conversion
	// Via is what they reach: one of the sinks ReflectValueOf,
	// ReflectTypeOf, ReflectTypeFor, ToUnsafe and FromUnsafe.
	Via string
	// Through names the function that passes them on to Via, "" for a
	// sink reached directly.
	Through string
	// Values are the expressions whose values reach the sink: its operands
	// and what was stored in the variables they read.
	Values []ast.Expr
	// Types are the types that reach it: type arguments, and the
	// destination of a conversion from unsafe.Pointer.
	Types []types.Type
}

// Result is the sinks of a package.
type Result struct {
	Sinks []Sink
}

// The sinks.
const (
	ReflectValueOf = "reflect.ValueOf"
	ReflectTypeOf  = "reflect.TypeOf"
	ReflectTypeFor = "reflect.TypeFor"
	ToUnsafe       = "an unsafe.Pointer conversion"
	FromUnsafe     = "a conversion from unsafe.Pointer"
)

// Passes is the fact that a function passes parameters or type parameters
// on to a sink.
type Passes struct {
	Params     []Edge // by index in the parameters
	TypeParams []Edge // by index in the type parameters, or a method's receiver type parameters
}

// An Edge is one parameter or type parameter that reaches a sink.
type Edge struct {
	Index int
	Via   string // the sink it reaches in the end, such as "reflect.ValueOf"
}

// AFact marks Passes as an analysis fact.
func (*Passes) AFact() {}

func (p *Passes) String() string {
	var parts []string
	for _, e := range p.Params {
		parts = append(parts, fmt.Sprintf("param %d to %s", e.Index, e.Via))
	}
	for _, e := range p.TypeParams {
		parts = append(parts, fmt.Sprintf("type param %d to %s", e.Index, e.Via))
	}
	return "passes " + strings.Join(parts, ", ")
}

func (p *Passes) empty() bool { return len(p.Params) == 0 && len(p.TypeParams) == 0 }

func (p *Passes) equal(q *Passes) bool {
	return slices.Equal(p.Params, q.Params) && slices.Equal(p.TypeParams, q.TypeParams)
}

// Analyzer computes the sinks of a package and the Passes facts of its
// functions. It reports nothing.
var Analyzer = &analysis.Analyzer{
	Name:       "telhaflow",
	Doc:        "finds where values and types reach reflect and unsafe, for the Telha rules",
	Run:        run,
	Requires:   []*analysis.Analyzer{marks.Analyzer},
	FactTypes:  []analysis.Fact{new(Passes)},
	ResultType: reflect.TypeFor[*Result](),
}

func run(pass *analysis.Pass) (any, error) {
	if pass.Module == nil || pass.Module.Path == "" {
		return &Result{}, nil // the standard library
	}
	if pass.ResultOf[marks.Analyzer].(*marks.Set).Inside {
		return &Result{}, nil // the authority
	}
	if !mayFlow(pass.Pkg) {
		return &Result{}, nil
	}
	a := &analyzer{pass: pass, passes: make(map[*types.Func]*Passes), globals: make(map[*types.Var][]ast.Expr)}
	for _, file := range pass.Files {
		for _, decl := range file.Decls {
			if gen, ok := decl.(*ast.GenDecl); ok {
				collectDefs(pass.TypesInfo, gen, a.globals)
			}
		}
	}
	// Passes facts of this package's functions feed each other: iterate
	// until none grows.
	for changed := true; changed; {
		changed = false
		a.sinks = nil
		for _, file := range pass.Files {
			for _, decl := range file.Decls {
				changed = a.decl(decl) || changed
			}
		}
	}
	for fn, p := range a.passes {
		if !p.empty() {
			pass.ExportObjectFact(fn, p)
		}
	}
	return &Result{Sinks: a.sinks}, nil
}

// mayFlow reports whether pkg imports reflect or unsafe, directly or not:
// otherwise nothing in it reaches a sink.
func mayFlow(pkg *types.Package) bool {
	return authority.Reaches(pkg, func(path string) bool { return path == "reflect" || path == "unsafe" })
}

type analyzer struct {
	pass    *analysis.Pass
	passes  map[*types.Func]*Passes   // this package's functions, as computed so far
	globals map[*types.Var][]ast.Expr // what package-level variables are set to
	sinks   []Sink                    // of the current iteration
}

// function is the analysis of one declaration.
type function struct {
	*analyzer
	fn      *types.Func // nil for a package-level var declaration
	params  map[*types.Var]int
	tparams *types.TypeParamList
	defs    map[*types.Var][]ast.Expr
	found   *Passes
	reached []int // the parameters the current sink's operands come from
}

// decl analyzes a declaration and reports whether the Passes fact of its
// function grew.
func (a *analyzer) decl(decl ast.Decl) bool {
	f := &function{analyzer: a, params: make(map[*types.Var]int), defs: make(map[*types.Var][]ast.Expr), found: new(Passes)}
	var body ast.Node
	switch decl := decl.(type) {
	case *ast.FuncDecl:
		fn, ok := a.pass.TypesInfo.Defs[decl.Name].(*types.Func)
		if !ok || decl.Body == nil {
			return false
		}
		f.fn, body = fn, decl.Body
		sig := fn.Signature()
		for i := range sig.Params().Len() {
			f.params[sig.Params().At(i)] = i
		}
		f.tparams = sig.TypeParams()
		if sig.RecvTypeParams().Len() > 0 {
			f.tparams = sig.RecvTypeParams()
		}
	case *ast.GenDecl:
		body = decl
	}
	collectDefs(a.pass.TypesInfo, body, f.defs)
	called := make(map[*ast.Ident]bool) // the functions named in call position
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id := funcIdent(call.Fun); id != nil {
				called[id] = true
			}
			f.call(call)
		}
		return true
	})
	ast.Inspect(body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && !called[id] {
			f.instance(id)
		}
		return true
	})
	if f.fn == nil {
		return false
	}
	slices.SortFunc(f.found.Params, compareEdges)
	slices.SortFunc(f.found.TypeParams, compareEdges)
	f.found.Params = slices.Compact(f.found.Params)
	f.found.TypeParams = slices.Compact(f.found.TypeParams)
	if old, ok := a.passes[f.fn]; ok && old.equal(f.found) {
		return false
	}
	a.passes[f.fn] = f.found
	return !f.found.empty()
}

func compareEdges(a, b Edge) int {
	if a.Index != b.Index {
		return a.Index - b.Index
	}
	return strings.Compare(a.Via, b.Via)
}

// call records the sink that call is, if any.
func (f *function) call(call *ast.CallExpr) {
	info := f.pass.TypesInfo
	if tv := info.Types[call.Fun]; tv.IsType() {
		if len(call.Args) != 1 {
			return
		}
		from, to := info.TypeOf(call.Args[0]), tv.Type
		switch {
		case isUnsafePointer(to) && !isUnsafePointer(from):
			f.sink(call, ToUnsafe, "", append(slices.Clip(call.Args), addressed(info, call.Args[0])...), nil)
		case isUnsafePointer(from) && !isUnsafePointer(to):
			f.sink(call, FromUnsafe, "", nil, []types.Type{to})
		}
		return
	}
	callee, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		if callee = f.heldFunc(call.Fun); callee == nil {
			return
		}
	}
	if callee.Pkg() != nil && callee.Pkg().Path() == "reflect" && callee.Signature().Recv() == nil {
		switch callee.Name() {
		case "ValueOf", "TypeOf":
			f.sink(call, "reflect."+callee.Name(), "", call.Args, nil)
		case "TypeFor":
			if inst, ok := info.Instances[funcIdent(call.Fun)]; ok {
				f.sink(call, ReflectTypeFor, "", nil, []types.Type{inst.TypeArgs.At(0)})
			}
		}
		return
	}
	callee = callee.Origin()
	passes := f.passesOf(callee)
	if passes == nil {
		return
	}
	sig := callee.Signature()
	for _, e := range passes.Params {
		args := call.Args
		switch {
		case sig.Variadic() && e.Index == sig.Params().Len()-1 && !call.Ellipsis.IsValid():
			args = args[min(e.Index, len(args)):]
		case e.Index < len(args):
			args = args[e.Index : e.Index+1]
		default:
			continue
		}
		f.sink(call, e.Via, calleeName(callee), args, nil)
	}
	for _, e := range passes.TypeParams {
		if t := f.typeArg(call, sig, e.Index); t != nil {
			f.sink(call, e.Via, calleeName(callee), nil, []types.Type{t})
		}
	}
}

// passesOf returns the Passes of fn: as computed so far for a function of
// this package, or the fact of another package's; nil if it has none.
func (f *function) passesOf(fn *types.Func) *Passes {
	if p := f.passes[fn]; p != nil {
		return p
	}
	p := new(Passes)
	if fn.Pkg() == f.pass.Pkg || !f.pass.ImportObjectFact(fn, p) {
		return nil
	}
	return p
}

// heldFunc returns the function that a local variable called as fun was
// last set to (f := keyhelper.Peek; f(&k)), or nil.
func (f *function) heldFunc(fun ast.Expr) *types.Func {
	id, ok := ast.Unparen(fun).(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := f.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || len(f.defs[v]) == 0 {
		return nil
	}
	def := f.defs[v][len(f.defs[v])-1]
	if id := funcIdent(def); id != nil {
		if fn, ok := f.pass.TypesInfo.Uses[id].(*types.Func); ok && fn.Signature().Recv() == nil {
			return fn
		}
	}
	return nil
}

// instance records the sink that id is, if it names an instantiation of a
// generic function whose type parameters reach a sink, taken as a value
// rather than called (g := keyhelper.Cast[storage.Key, [16]byte]): the
// type arguments reach the sink wherever the value is called.
func (f *function) instance(id *ast.Ident) {
	info := f.pass.TypesInfo
	inst, ok := info.Instances[id]
	if !ok {
		return
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok {
		return
	}
	fn = fn.Origin()
	passes := f.passesOf(fn)
	if passes == nil {
		return
	}
	for _, e := range passes.TypeParams {
		if e.Index < inst.TypeArgs.Len() {
			f.sink(id, e.Via, calleeName(fn), nil, []types.Type{inst.TypeArgs.At(e.Index)})
		}
	}
}

// typeArg returns the type argument at index i of the callee of call:
// of the function's instantiation, or of its receiver's type.
func (f *function) typeArg(call *ast.CallExpr, sig *types.Signature, i int) types.Type {
	info := f.pass.TypesInfo
	if sig.TypeParams().Len() > 0 {
		if inst, ok := info.Instances[funcIdent(call.Fun)]; ok && i < inst.TypeArgs.Len() {
			return inst.TypeArgs.At(i)
		}
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	selection := info.Selections[sel]
	if selection == nil {
		return nil
	}
	recv := selection.Recv()
	if ptr, ok := recv.Underlying().(*types.Pointer); ok {
		recv = ptr.Elem()
	}
	if named, ok := types.Unalias(recv).(*types.Named); ok && i < named.TypeArgs().Len() {
		return named.TypeArgs().At(i)
	}
	return nil
}

// sink records a sink and the parameters and type parameters of the
// function that reach it.
func (f *function) sink(node ast.Node, via, through string, operands []ast.Expr, typs []types.Type) {
	seen := make(map[*types.Var]bool)
	var values []ast.Expr
	f.reached = f.reached[:0]
	for _, op := range operands {
		values = f.resolve(op, seen, values)
	}
	for _, i := range f.reached {
		f.found.Params = append(f.found.Params, Edge{Index: i, Via: via})
	}
	reaching := slices.Clone(typs)
	for _, v := range values {
		if t := f.pass.TypesInfo.TypeOf(v); t != nil {
			reaching = append(reaching, t)
		}
	}
	for _, t := range reaching {
		for i := range f.tparams.Len() {
			if mentions(t, f.tparams.At(i)) {
				f.found.TypeParams = append(f.found.TypeParams, Edge{Index: i, Via: via})
			}
		}
	}
	f.sinks = append(f.sinks, Sink{Node: node, Via: via, Through: through, Values: values, Types: typs})
}

// resolve appends e and the expressions whose values e may hold to out,
// and records the parameters among them.
func (f *function) resolve(e ast.Expr, seen map[*types.Var]bool, out []ast.Expr) []ast.Expr {
	out = append(out, e)
	inner := strip(f.pass.TypesInfo, e)
	if inner != e {
		out = append(out, inner)
	}
	for _, part := range parts(f.pass.TypesInfo, inner) {
		out = f.resolve(part, seen, out)
	}
	id, ok := inner.(*ast.Ident)
	if !ok {
		return out
	}
	v, ok := f.pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || seen[v] {
		return out
	}
	seen[v] = true
	if i, ok := f.params[v]; ok && mayHold(v.Type()) {
		f.reached = append(f.reached, i)
	}
	for _, def := range f.defs[v] {
		out = f.resolve(def, seen, out)
	}
	for _, def := range f.globals[v] {
		out = f.resolve(def, seen, out)
	}
	return out
}

// addressed returns, for the address of a field or an array element
// (&x.f, &x.a[i]), the values that hold it (x, x.a): pointer arithmetic
// from the address reaches the rest of them, so they reach an unsafe
// conversion of it.
func addressed(info *types.Info, e ast.Expr) []ast.Expr {
	u, ok := ast.Unparen(e).(*ast.UnaryExpr)
	if !ok || u.Op != token.AND {
		return nil
	}
	var out []ast.Expr
	for x := ast.Unparen(u.X); ; {
		switch y := x.(type) {
		case *ast.SelectorExpr:
			if sel, ok := info.Selections[y]; !ok || sel.Kind() != types.FieldVal {
				return out
			}
			x = ast.Unparen(y.X)
		case *ast.IndexExpr:
			if _, ok := info.TypeOf(y.X).Underlying().(*types.Array); !ok {
				return out
			}
			x = ast.Unparen(y.X)
		default:
			return out
		}
		out = append(out, x)
	}
}

// parts returns the expressions whose values a composite literal or a
// call of append is made of.
func parts(info *types.Info, e ast.Expr) []ast.Expr {
	switch e := e.(type) {
	case *ast.CompositeLit:
		var out []ast.Expr
		for _, elt := range e.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				out = append(out, kv.Key, kv.Value)
			} else {
				out = append(out, elt)
			}
		}
		return out
	case *ast.CallExpr:
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok {
			if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "append" {
				return e.Args
			}
		}
	}
	return nil
}

// strip returns the expression whose value e carries: through
// parentheses, address-of, dereference, slicing, type assertions and
// conversions to interfaces, and, for a value of interface type, through
// the field, element or channel it was read from to the variable that
// holds it, whose every part collectDefs records. A value of a concrete
// type is what its type says, wherever it comes from.
func strip(info *types.Info, e ast.Expr) ast.Expr {
	for {
		next := e
		switch x := e.(type) {
		case *ast.ParenExpr:
			next = x.X
		case *ast.StarExpr:
			next = x.X
		case *ast.UnaryExpr:
			if x.Op == token.AND || x.Op == token.ARROW && types.IsInterface(info.TypeOf(x)) {
				next = x.X
			}
		case *ast.SelectorExpr:
			if sel, ok := info.Selections[x]; ok && sel.Kind() == types.FieldVal && types.IsInterface(info.TypeOf(x)) {
				next = x.X
			}
		case *ast.IndexExpr:
			if _, ok := info.Instances[funcIdent(x.X)]; !ok && types.IsInterface(info.TypeOf(x)) {
				next = x.X
			}
		case *ast.SliceExpr:
			next = x.X
		case *ast.TypeAssertExpr:
			next = x.X
		case *ast.CallExpr:
			if tv := info.Types[x.Fun]; tv.IsType() && len(x.Args) == 1 && types.IsInterface(tv.Type) {
				next = x.Args[0]
			}
		}
		if next == e {
			return e
		}
		e = next
	}
}

// mayHold reports whether a value of type t may hold a value of a type
// other than the basic types: only such a value can bring a type of the
// authority to a sink.
func mayHold(t types.Type) bool {
	switch t := t.Underlying().(type) {
	case *types.Basic:
		return false
	case *types.Slice:
		return mayHold(t.Elem())
	case *types.Array:
		return mayHold(t.Elem())
	}
	return true
}

// Definitions returns, for the variables declared or assigned in the
// files, the expressions they are set to (see collectDefs).
func Definitions(info *types.Info, files []*ast.File) map[*types.Var][]ast.Expr {
	defs := make(map[*types.Var][]ast.Expr)
	for _, f := range files {
		collectDefs(info, f, defs)
	}
	return defs
}

// collectDefs records, for the variables declared or assigned in root,
// the expressions they are set to: by assignment (also to one of their
// fields or elements; the first variable of v, ok := f() to the call),
// declaration, send, range, type switch, and as the parameters of a
// function literal.
func collectDefs(info *types.Info, root ast.Node, defs map[*types.Var][]ast.Expr) {
	add := func(lhs ast.Expr, rhs ast.Expr) {
		if id, ok := strip(info, lhs).(*ast.Ident); ok {
			if v, ok := info.ObjectOf(id).(*types.Var); ok {
				defs[v] = append(defs[v], rhs)
			}
		}
	}
	ast.Inspect(root, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			switch {
			case len(n.Lhs) == len(n.Rhs):
				for i := range n.Lhs {
					add(n.Lhs[i], n.Rhs[i])
				}
			case len(n.Rhs) == 1:
				add(n.Lhs[0], n.Rhs[0])
			}
		case *ast.ValueSpec:
			switch {
			case len(n.Names) == len(n.Values):
				for i := range n.Names {
					add(n.Names[i], n.Values[i])
				}
			case len(n.Values) == 1:
				add(n.Names[0], n.Values[0])
			}
		case *ast.SendStmt:
			add(n.Chan, n.Value)
		case *ast.RangeStmt:
			for _, lhs := range []ast.Expr{n.Key, n.Value} {
				if lhs != nil {
					add(lhs, n.X)
				}
			}
		case *ast.TypeSwitchStmt:
			var x ast.Expr
			switch a := n.Assign.(type) {
			case *ast.AssignStmt:
				x = a.Rhs[0].(*ast.TypeAssertExpr).X
			case *ast.ExprStmt:
				x = a.X.(*ast.TypeAssertExpr).X
			}
			for _, clause := range n.Body.List {
				if v, ok := info.Implicits[clause].(*types.Var); ok {
					defs[v] = append(defs[v], x)
				}
			}
		case *ast.CallExpr:
			// A function literal called where it is written, or through a
			// variable: its parameters are set to the arguments.
			if lit := funcLit(info, n.Fun, defs); lit != nil {
				params := info.TypeOf(lit).(*types.Signature).Params()
				for i, arg := range n.Args {
					if i < params.Len() {
						defs[params.At(i)] = append(defs[params.At(i)], arg)
					}
				}
			}
		}
		return true
	})
}

// funcLit returns the function literal that fun is, or that the local
// variable fun was last set to.
func funcLit(info *types.Info, fun ast.Expr, defs map[*types.Var][]ast.Expr) *ast.FuncLit {
	switch fun := ast.Unparen(fun).(type) {
	case *ast.FuncLit:
		return fun
	case *ast.Ident:
		if v, ok := info.Uses[fun].(*types.Var); ok {
			if d := defs[v]; len(d) > 0 {
				lit, _ := ast.Unparen(d[len(d)-1]).(*ast.FuncLit)
				return lit
			}
		}
	}
	return nil
}

// funcIdent returns the identifier that names the function in the
// function part of a call: F in pkg.F[T].
func funcIdent(fun ast.Expr) *ast.Ident {
	for {
		switch x := ast.Unparen(fun).(type) {
		case *ast.Ident:
			return x
		case *ast.SelectorExpr:
			return x.Sel
		case *ast.IndexExpr:
			fun = x.X
		case *ast.IndexListExpr:
			fun = x.X
		default:
			return nil
		}
	}
}

// calleeName names a function or method for messages: "keyhelper.Peek",
// "keyhelper.Box.Peek".
func calleeName(fn *types.Func) string {
	if recv := fn.Signature().Recv(); recv != nil {
		t := recv.Type()
		if ptr, ok := t.(*types.Pointer); ok {
			t = ptr.Elem()
		}
		if named, ok := types.Unalias(t).(*types.Named); ok {
			return fn.Pkg().Name() + "." + named.Obj().Name() + "." + fn.Name()
		}
	}
	return fn.Pkg().Name() + "." + fn.Name()
}

func isUnsafePointer(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.UnsafePointer
}

// mentions reports whether t mentions the type parameter tp.
func mentions(t types.Type, tp *types.TypeParam) bool {
	switch t := t.(type) {
	case *types.TypeParam:
		return t == tp
	case *types.Alias:
		return mentions(types.Unalias(t), tp)
	case *types.Named:
		for i := range t.TypeArgs().Len() {
			if mentions(t.TypeArgs().At(i), tp) {
				return true
			}
		}
	case *types.Pointer:
		return mentions(t.Elem(), tp)
	case *types.Slice:
		return mentions(t.Elem(), tp)
	case *types.Array:
		return mentions(t.Elem(), tp)
	case *types.Chan:
		return mentions(t.Elem(), tp)
	case *types.Map:
		return mentions(t.Key(), tp) || mentions(t.Elem(), tp)
	case *types.Struct:
		for i := range t.NumFields() {
			if mentions(t.Field(i).Type(), tp) {
				return true
			}
		}
	case *types.Signature:
		for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
			for i := range tuple.Len() {
				if mentions(tuple.At(i).Type(), tp) {
					return true
				}
			}
		}
	}
	return false
}
