// Package marks places each package with respect to the key authority and
// carries what the authority says about its declarations to the packages
// that use them, as analysis facts.
//
// Placing: a package in the authority (authority.Default.Contains, judged
// on its own pass from its module and its files) gets the package fact
// Authority; the rules learn from it which types and declarations are the
// authority's, in every driver.
//
// Marks: a mark is a directive line at the end of a doc comment, in Go
// directive style (no space after the slashes):
//
//	//telha:restricted <kind> <advice>
//	//telha:opaque <advice>
//	//telha:credential <advice>
//	//telha:facade for=<path>[,<path>...] [reexport=<module>[,<module>...]]
//	//telha:facade tests
//
// A restricted declaration may not be referenced outside the authority; the
// kind says which rule enforces it ("rawbytes" for bytekey, any other kind,
// such as "system", for systemscope). An opaque type may not be constructed
// outside the authority except as a zero value. A credential type (the
// tenant scope) is one that the packages serving requests take only from
// the request's credential (see scopesource). The advice says what to use
// instead and ends up in the diagnostic. A facade mark, in a package doc
// comment, admits as importers, outside the authority, only the package
// trees it names, each placed by its module and directory as
// authority.conf lays them out (as Go's internal/ does, across modules);
// reexport= names the modules to which the packages it admits may hand
// on what they get from it (see systemscope). A facade for tests admits
// the test files (_test.go) of every package and no other file: the
// authority's helpers for tests, whose reach into the system namespace
// production code must not borrow.
//
// Marks are read on package-level types, funcs, methods, vars and consts
// (for a grouped declaration, on the spec, or else on the group), on the
// fields and interface methods of package-level struct and interface
// types, and, for facade, on the package. Only the authority's marks count:
// elsewhere they are not read. A //telha: line with an unknown verb or a
// malformed facade mark in the authority makes the analysis fail, so that a
// typo cannot silently lift a restriction.
package marks

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"telha.dev/analyzers/authority"
)

// Directive verbs.
const (
	Restricted = "restricted"
	Opaque     = "opaque"
	Credential = "credential"
	FacadeVerb = "facade"
)

// RawBytes is the kind of the restricted declarations that take or expose
// raw key bytes; bytekey enforces it, systemscope every other kind.
const RawBytes = "rawbytes"

// A Directive is one //telha: line on a declaration.
type Directive struct {
	Verb   string // Restricted or Opaque
	Kind   string // the kind of a Restricted directive
	Advice string // what to use instead
}

// What names what the directive makes of a declaration, for messages:
// "opaque", "system-restricted".
func (d Directive) What() string {
	switch {
	case d.Verb == Opaque:
		return "opaque"
	case d.Verb == Credential:
		return "credential"
	case d.Kind == "":
		return "restricted"
	}
	return d.Kind + "-restricted"
}

// Instead returns the advice, or a generic one when the mark gave none.
func (d Directive) Instead() string {
	if d.Advice == "" {
		return "use the exported API of the key authority"
	}
	return d.Advice
}

// Mark is the fact that a declaration of the authority carries directives.
type Mark struct {
	Directives []Directive
}

// AFact marks Mark as an analysis fact.
func (*Mark) AFact() {}

func (m *Mark) String() string {
	var b strings.Builder
	for i, d := range m.Directives {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.Verb)
		if d.Kind != "" {
			b.WriteString(" " + d.Kind)
		}
		fmt.Fprintf(&b, " %q", d.Advice)
	}
	return b.String()
}

// Authority is the fact that a package is in the key authority, with the
// root of the repository that holds it: facades and grants place packages
// below it.
type Authority struct {
	Root string
}

// AFact marks Authority as an analysis fact.
func (*Authority) AFact() {}

func (*Authority) String() string { return "authority" }

// Facade is the fact that a package of the authority is a facade: only the
// package trees For, in the repository at Root, may import it from outside
// the authority, and they may hand what they get from it on only to the
// modules Reexport; or, with Tests, only test files may import it.
type Facade struct {
	For      []string
	Reexport []string
	Root     string
	Tests    bool
}

// AFact marks Facade as an analysis fact.
func (*Facade) AFact() {}

func (f *Facade) String() string {
	if f.Tests {
		return "facade for tests"
	}
	s := "facade for " + strings.Join(f.For, ",")
	if len(f.Reexport) > 0 {
		s += " reexport " + strings.Join(f.Reexport, ",")
	}
	return s
}

// Users names the package trees the facade exists for, for messages.
func (f *Facade) Users() string {
	if f.Tests {
		return "test files"
	}
	return strings.Join(f.For, " or ")
}

// AdmitsFile reports whether the file named filename of importer may
// import the facade.
func (f *Facade) AdmitsFile(importer authority.Package, filename string) bool {
	if f.Tests {
		return strings.HasSuffix(filename, "_test.go")
	}
	return f.Admits(importer)
}

// Analyzer places the package, exports the facts of the authority's
// packages and marks, and returns what the package can see as a *Set. It
// reports nothing.
var Analyzer = &analysis.Analyzer{
	Name:       "telhamarks",
	Doc:        "places packages with respect to the key authority and reads its //telha: marks for the Telha rules",
	Run:        run,
	FactTypes:  []analysis.Fact{new(Mark), new(Authority), new(Facade)},
	ResultType: reflect.TypeFor[*Set](),
}

// A Set holds what a package knows about the authority: whether it is in
// it, the authority's packages and facades among its dependencies, and the
// marks of their declarations.
type Set struct {
	// Inside reports whether the package itself is in the authority.
	Inside bool
	// Pkg is the package itself.
	Pkg *types.Package

	authority map[*types.Package]bool
	facades   map[*types.Package]*Facade
	facts     []analysis.ObjectFact
	root      string // the root of the repository of the authority, if the package sees it
}

// Root returns the root of the repository of the authority, as the
// authority's packages that the package sees place it, or "".
func (s *Set) Root() string { return s.root }

// InAuthority reports whether pkg is in the authority: the package itself
// when Inside, or a dependency placed there by its own analysis.
func (s *Set) InAuthority(pkg *types.Package) bool {
	if pkg == s.Pkg {
		return s.Inside
	}
	return s.authority[pkg]
}

// FacadeOf returns the facade fact of pkg, or nil if pkg is not a facade.
func (s *Set) FacadeOf(pkg *types.Package) *Facade {
	return s.facades[pkg]
}

// FacadeOfPath returns the facade fact of the package with the import path,
// among the packages the package sees, or nil.
func (s *Set) FacadeOfPath(path string) *Facade {
	for pkg, f := range s.facades {
		if pkg.Path() == path {
			return f
		}
	}
	return nil
}

// Index maps marked objects to the one directive a rule enforces on each.
type Index map[types.Object]Directive

// Match reports whether obj is in the index.
func (ix Index) Match(obj types.Object) bool {
	_, ok := ix[obj]
	return ok
}

// Describe returns what the directive on obj makes of it and the advice.
// With Match it makes an Index a rule for package refs.
func (ix Index) Describe(obj types.Object) (what, advice string) {
	d := ix[obj]
	return d.What(), d.Instead()
}

// Funcs returns the marked functions and methods in the index, interface
// methods included, in a stable order.
func (ix Index) Funcs() []*types.Func {
	var methods []*types.Func
	for obj := range ix {
		if fn, ok := obj.(*types.Func); ok {
			methods = append(methods, fn)
		}
	}
	slices.SortFunc(methods, func(a, b *types.Func) int { return cmp.Compare(a.Pos(), b.Pos()) })
	return methods
}

// Select returns the directives accepted by keep on the declarations of the
// authority; it is nil if there are none.
func (s *Set) Select(keep func(Directive) bool) Index {
	var ix Index
	for _, f := range s.facts {
		for _, d := range f.Fact.(*Mark).Directives {
			if !keep(d) {
				continue
			}
			if ix == nil {
				ix = make(Index)
			}
			ix[f.Object] = d
		}
	}
	return ix
}

func run(pass *analysis.Pass) (any, error) {
	root, inside := authority.Default.Root(PackageOf(pass))
	if inside {
		pass.ExportPackageFact(&Authority{Root: root})
		if err := exportMarks(pass, root); err != nil {
			return nil, err
		}
	}
	s := &Set{
		root:      root,
		Inside:    inside,
		Pkg:       pass.Pkg,
		authority: make(map[*types.Package]bool),
		facades:   make(map[*types.Package]*Facade),
		facts:     pass.AllObjectFacts(),
	}
	for _, f := range pass.AllPackageFacts() {
		switch fact := f.Fact.(type) {
		case *Authority:
			s.authority[f.Package] = true
			s.root = cmp.Or(s.root, fact.Root)
		case *Facade:
			s.facades[f.Package] = fact
		}
	}
	return s, nil
}

// PackageOf describes the package of pass for authority.Config.Contains,
// with the names of its files as the driver gave them (not as //line
// directives rename them).
func PackageOf(pass *analysis.Pass) authority.Package {
	p := authority.Package{Path: pass.Pkg.Path(), Name: pass.Pkg.Name()}
	if pass.Module != nil {
		p.Module = pass.Module.Path
	}
	for _, f := range pass.Files {
		if tf := pass.Fset.File(f.FileStart); tf != nil {
			p.Files = append(p.Files, tf.Name())
		}
	}
	return p
}

// exportMarks exports the facts of the marks in the package of pass.
func exportMarks(pass *analysis.Pass, root string) error {
	var errs []string
	fail := func(pos ast.Node, err error) {
		errs = append(errs, fmt.Sprintf("%s: %v", pass.Fset.Position(pos.Pos()), err))
	}
	var facade *Facade
	for _, file := range pass.Files {
		if file.Doc != nil {
			f, err := parseFacade(file.Doc)
			if err != nil {
				fail(file.Doc, err)
			} else if f != nil {
				facade = f
			}
		}
		for _, decl := range file.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				export(pass, decl.Name, decl.Doc, fail)
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					exportSpec(pass, spec, decl.Doc, fail)
				}
			}
		}
	}
	if facade != nil {
		facade.Root = root
		pass.ExportPackageFact(facade)
	}
	if len(errs) > 0 {
		return fmt.Errorf("malformed //telha: marks:\n\t%s", strings.Join(errs, "\n\t"))
	}
	return nil
}
