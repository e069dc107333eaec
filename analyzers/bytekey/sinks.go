package bytekey

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ast/inspector"

	"telha.dev/analyzers/internal/flow"
	"telha.dev/analyzers/internal/marks"
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
