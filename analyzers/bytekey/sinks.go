package bytekey

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"

	"telha.dev/analyzers/internal/flow"
	"telha.dev/analyzers/internal/marks"
	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/refs"
	"telha.dev/analyzers/internal/rule"
)

// checkSinks reports the sinks of reflect and unsafe that a value or a
// type of the authority reaches, once per call or conversion.
func checkSinks(p *rule.Pass, opaque marks.Index, sinks []flow.Sink) {
	find := refs.AuthorityTypes(p)
	reported := make(map[ast.Node]bool)
	for _, s := range sinks {
		if reported[s.Node] {
			continue
		}
		var (
			t  types.Type
			tn *types.TypeName
		)
		for _, v := range s.Values {
			if t = p.TypesInfo.TypeOf(v); t != nil {
				if tn = find.Find(t); tn != nil {
					break
				}
			}
		}
		for i := 0; tn == nil && i < len(s.Types); i++ {
			t = s.Types[i]
			tn = find.Find(t)
		}
		if tn == nil {
			continue
		}
		reported[s.Node] = true
		what := holding(t, tn)
		switch {
		case s.Through != "":
			p.Reportf(s.Node, adviceFor(tn, opaque), "%s passes %s to %s", s.Through, what, s.Via)
		case s.Via == flow.ToUnsafe:
			p.Reportf(s.Node, adviceFor(tn, opaque), "unsafe.Pointer conversion of %s", what)
		case s.Via == flow.FromUnsafe:
			p.Reportf(s.Node, adviceFor(tn, opaque), "conversion from unsafe.Pointer to %s", what)
		default:
			p.Reportf(s.Node, adviceFor(tn, opaque), "%s on %s", s.Via, what)
		}
	}
}

// checkBodyless reports the functions declared without a body whose
// signature holds a type of the authority: their implementation, in
// assembly or pulled in by //go:linkname, is beyond the type system.
func checkBodyless(p *rule.Pass) {
	find := refs.AuthorityTypes(p)
	for decl := range inspector.All[*ast.FuncDecl](p.Inspector) {
		if decl.Body != nil {
			continue
		}
		fn, ok := p.TypesInfo.Defs[decl.Name].(*types.Func)
		if !ok {
			continue
		}
		if tn := find.Find(fn.Type()); tn != nil {
			p.Reportf(decl.Name, advice, "function %s, declared without a body (assembly or //go:linkname), takes or returns %s", fn.Name(), refs.Name(tn))
		}
	}
}

// checkCarriers reports the functions declared without a body whose
// signature holds a type that carries values it does not name (an
// interface, a type parameter, unsafe.Pointer, uintptr, a func), in any
// package, whether or not it imports the authority: through such a
// parameter the implementation, in assembly or pulled in by //go:linkname,
// gets a key as surely as through one of type storage.Key (an any holding
// a *storage.Key is, to assembly, a pointer to the key's bytes), from
// callers in packages that do import it.
//
// A function that also names a type of the authority is checkBodyless's;
// the files cgo writes for a package (its runtime's hooks) are cgo's.
func checkCarriers(p *rule.Pass) {
	find := refs.AuthorityTypes(p)
	for _, f := range native.Files(p.Fset, p.Files) {
		for _, d := range f.Decls {
			decl, ok := d.(*ast.FuncDecl)
			if !ok || decl.Body != nil {
				continue
			}
			fn, ok := p.TypesInfo.Defs[decl.Name].(*types.Func)
			if !ok || find.Find(fn.Type()) != nil {
				continue
			}
			if t := signatureCarrier(fn.Signature()); t != nil {
				p.Reportf(decl.Name, "declare it with the numbers, slices and structs it works on",
					"function %s, declared without a body (assembly or //go:linkname), takes or returns %s, which carries values its signature does not name, the key authority's among them,", fn.Name(), refs.TypeString(t))
			}
		}
	}
}

// signatureCarrier returns the first carrier (see carrier) among the
// parameters and results of sig, the receiver included.
func signatureCarrier(sig *types.Signature) types.Type {
	seen := make(map[types.Type]bool)
	if recv := sig.Recv(); recv != nil {
		if c := carrier(recv.Type(), seen); c != nil {
			return c
		}
	}
	for _, tuple := range []*types.Tuple{sig.Params(), sig.Results()} {
		for v := range tuple.Variables() {
			if c := carrier(v.Type(), seen); c != nil {
				return c
			}
		}
	}
	return nil
}

// carrier returns the first type held by t (through pointers, slices,
// arrays, maps, channels, struct fields and named types) that carries
// values it does not name: an interface, a type parameter,
// unsafe.Pointer, uintptr or a func; nil if there is none.
func carrier(t types.Type, seen map[types.Type]bool) types.Type {
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch u := t.(type) {
	case *types.Named:
		if _, ok := u.Underlying().(*types.Interface); ok {
			return t
		}
		return carrier(u.Underlying(), seen)
	case *types.Alias:
		return carrier(types.Unalias(u), seen)
	case *types.Basic:
		if u.Kind() == types.UnsafePointer || u.Kind() == types.Uintptr {
			return t
		}
	case *types.Interface, *types.TypeParam, *types.Signature:
		return t
	case *types.Pointer:
		return carrier(u.Elem(), seen)
	case *types.Slice:
		return carrier(u.Elem(), seen)
	case *types.Array:
		return carrier(u.Elem(), seen)
	case *types.Chan:
		return carrier(u.Elem(), seen)
	case *types.Map:
		if c := carrier(u.Key(), seen); c != nil {
			return c
		}
		return carrier(u.Elem(), seen)
	case *types.Struct:
		for i := range u.NumFields() {
			if c := carrier(u.Field(i).Type(), seen); c != nil {
				return c
			}
		}
	}
	return nil
}

// holding describes a type that holds the type name tn of the authority.
func holding(t types.Type, tn *types.TypeName) string {
	if refs.TypeString(t) == refs.Name(tn) || refs.TypeString(t) == "*"+refs.Name(tn) {
		return refs.TypeString(t)
	}
	return refs.TypeString(t) + ", which holds " + refs.Name(tn)
}

// adviceFor returns the advice of the mark of tn if it is opaque, or the
// general advice.
func adviceFor(tn *types.TypeName, opaque marks.Index) string {
	if d, ok := opaque[tn]; ok {
		return d.Instead()
	}
	return advice
}
