package refs

import (
	"go/types"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/rule"
)

// A Finder finds forbidden type names in types: in the type itself, its
// elements, fields, parameters, results, methods and type arguments, and
// in the definitions of the named types it mentions that are defined
// outside the authority, transitively. A named type of the authority is a
// wall: what it holds is the authority's business. Recursive types end.
type Finder struct {
	match func(*types.TypeName) bool
	// wall reports whether the definition of a named type is not looked
	// into: the authority's, and those of packages that see nothing the
	// rules forbid.
	wall func(*types.Package) bool
	done map[*types.Named]*types.TypeName // named types with a final answer
	busy map[*types.Named]int             // named types being walked, by depth
	// cut is the least depth of a busy type met since the walk of the
	// innermost named type began: a nil answer is final only if the walk
	// met no type being walked further out.
	cut int
	// from, if set, is the package the values are used in: a field it
	// cannot name (unexported, of another package, not embedded) is not
	// looked into, as code there cannot take anything out of it.
	from *types.Package
}

// NewFinder returns a Finder for the pass that finds the type names that
// m matches.
func NewFinder(p *rule.Pass, m Matcher) *Finder {
	reaches := make(map[*types.Package]bool)
	return &Finder{
		match: func(tn *types.TypeName) bool { return m.Match(tn) },
		wall: func(pkg *types.Package) bool {
			if pkg == nil || p.Marks.InAuthority(pkg) {
				return true
			}
			r, ok := reaches[pkg]
			if !ok {
				r = rule.Reaches(pkg, authority.Default)
				reaches[pkg] = r
			}
			return !r
		},
		done: make(map[*types.Named]*types.TypeName),
		busy: make(map[*types.Named]int),
		cut:  maxDepth,
	}
}

// VisibleFrom makes f look only into the fields that code of pkg can
// name, and returns f: for a rule about what a package can take out of a
// value (scopesource), not about what a value carries (the key rules).
func (f *Finder) VisibleFrom(pkg *types.Package) *Finder {
	f.from = pkg
	return f
}

// AuthorityTypes returns a Finder of the types declared in the authority.
func AuthorityTypes(p *rule.Pass) *Finder {
	return NewFinder(p, matcherFunc(func(obj types.Object) bool {
		return obj.Pkg() != nil && p.Marks.InAuthority(obj.Pkg())
	}))
}

type matcherFunc func(types.Object) bool

func (f matcherFunc) Match(obj types.Object) bool { return f(obj) }

// Find returns the first forbidden type name in t, or nil.
func (f *Finder) Find(t types.Type) *types.TypeName {
	switch t := t.(type) {
	case *types.Alias:
		if f.match(t.Obj()) {
			return t.Obj()
		}
		return f.Find(types.Unalias(t))
	case *types.Named:
		return f.named(t)
	case *types.Pointer:
		return f.Find(t.Elem())
	case *types.Slice:
		return f.Find(t.Elem())
	case *types.Array:
		return f.Find(t.Elem())
	case *types.Chan:
		return f.Find(t.Elem())
	case *types.Map:
		if tn := f.Find(t.Key()); tn != nil {
			return tn
		}
		return f.Find(t.Elem())
	case *types.Signature:
		if tn := f.tuple(t.Params()); tn != nil {
			return tn
		}
		return f.tuple(t.Results())
	case *types.Tuple:
		return f.tuple(t)
	case *types.Struct:
		for i := range t.NumFields() {
			fd := t.Field(i)
			if f.from != nil && !fd.Exported() && !fd.Embedded() && fd.Pkg() != f.from {
				continue
			}
			if tn := f.Find(fd.Type()); tn != nil {
				return tn
			}
		}
	case *types.Interface:
		for i := range t.NumExplicitMethods() {
			if tn := f.Find(t.ExplicitMethod(i).Type()); tn != nil {
				return tn
			}
		}
		for i := range t.NumEmbeddeds() {
			if tn := f.Find(t.EmbeddedType(i)); tn != nil {
				return tn
			}
		}
	case *types.Union:
		for i := range t.Len() {
			if tn := f.Find(t.Term(i).Type()); tn != nil {
				return tn
			}
		}
	}
	return nil
}

// named finds in a named type: its origin, its type arguments, and unless
// it is walled off, its definition with the type arguments in place.
func (f *Finder) named(t *types.Named) *types.TypeName {
	if tn, ok := f.done[t]; ok {
		return tn
	}
	if depth, ok := f.busy[t]; ok {
		f.cut = min(f.cut, depth)
		return nil // a recursive type: its other parts are being walked
	}
	depth := len(f.busy)
	f.busy[t] = depth
	outerCut := f.cut
	f.cut = maxDepth
	obj := t.Origin().Obj()
	var tn *types.TypeName
	switch {
	case f.match(obj):
		tn = obj
	default:
		for i := range t.TypeArgs().Len() {
			if tn = f.Find(t.TypeArgs().At(i)); tn != nil {
				break
			}
		}
		if tn == nil && !f.wall(obj.Pkg()) {
			tn = f.Find(t.Underlying())
		}
	}
	delete(f.busy, t)
	if tn != nil || f.cut >= depth {
		f.done[t] = tn
	}
	f.cut = min(outerCut, f.cut)
	return tn
}

const maxDepth = int(^uint(0) >> 1)

func (f *Finder) tuple(tuple *types.Tuple) *types.TypeName {
	for i := range tuple.Len() {
		if tn := f.Find(tuple.At(i).Type()); tn != nil {
			return tn
		}
	}
	return nil
}
