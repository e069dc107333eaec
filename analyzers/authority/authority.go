// Package authority says where the key authority is and what only it may
// use: the configuration that every Telha rule shares, read from
// authority.conf, which is compiled into the rules.
//
// Whether a package is in the authority is a fact about where its code is:
// the module it belongs to and the directory its files are in, both as the
// go command reports them. It is never decided by a prefix of an import
// path, so a module or directory that merely looks like the authority stays
// outside it.
package authority

import (
	_ "embed"
	"go/types"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

//go:embed authority.conf
var conf string

// Default is the configuration of this repository, from authority.conf,
// and Err the error that reading it gave: a malformed line (a grant
// without a reason, an unknown capability, a module placed twice) leaves
// Default empty, every rule fails on every package with Err, and telhavet
// stops at once, naming the line. A typo cannot lift a restriction.
var Default, Err = parseDefault(conf)

func parseDefault(text string) (*Config, error) {
	c, err := Parse(text)
	if err != nil {
		return &Config{text: text}, err
	}
	return c, nil
}

// Config is the authority and what only it may use.
type Config struct {
	// Trees are the package trees of the authority.
	Trees []Tree
	// Bindings are the import paths of the raw engine bindings; each
	// covers its package and every package below it.
	Bindings []string
	// CLibs are the names of the C libraries of the engines.
	CLibs []string
	// Modules are the modules of the repository that the authority, its
	// facades and the grants place packages in: those of the authority
	// lines and of the module lines.
	Modules []Module
	// Grants are the capabilities granted to packages outside the
	// authority.
	Grants []Grant
	// Serves are the package trees that serve requests: their scope comes
	// from the request's credential (see scopesource).
	Serves []string
	// Fixtures are the directories, relative to the repository root, of
	// deliberate violations (the analyzers' own testdata) that the gate
	// does not analyze; an element may be a path.Match pattern.
	Fixtures []string

	clibs []*regexp.Regexp // CLibs as CLib matches them
	text  string           // the text it was parsed from
}

// With returns the configuration with more lines, for tests of the rules
// that need grants or modules of their own.
func (c *Config) With(lines string) (*Config, error) { return Parse(c.text + "\n" + lines) }

// A Module is a module of the repository.
type Module struct {
	Path string // the module path
	Dir  string // its directory, relative to the repository root, slash-separated
}

// A Grant lets one package outside the authority use one capability.
type Grant struct {
	Package    string // the import path
	Capability string // one of Capabilities
	Reason     string // why, as reviewed
}

// The capabilities that forge memory or reach code around the type
// system. Outside the authority a package uses one only if it is
// granted.
const (
	Unsafe   = "unsafe"   // import "unsafe"
	Reflect  = "reflect"  // reflect's operations that alias memory or call methods by name
	Linkname = "linkname" // //go:linkname
	Cgo      = "cgo"      // import "C"
	Asm      = "asm"      // assembly and object files
	Plugin   = "plugin"   // the plugin package
	Dlopen   = "dlopen"   // loading a shared library at run time
	Scope    = "scope"    // making a tenant scope in a package that serves requests
)

// Capabilities lists the capabilities.
var Capabilities = []string{Unsafe, Reflect, Linkname, Cgo, Asm, Plugin, Dlopen, Scope}

// Tree is one package tree of the authority.
type Tree struct {
	Module string // the module path
	Dir    string // the module's directory, relative to the repository root, slash-separated
	Path   string // the tree inside the module, relative to the module root; "" for the whole module
}

// Root returns the import path at the root of the tree.
func (t Tree) Root() string {
	if t.Path == "" {
		return t.Module
	}
	return t.Module + "/" + t.Path
}

// Package is what a driver tells about a package: enough to place it.
type Package struct {
	Path   string   // the import path
	Name   string   // the package name
	Module string   // the module path; "" outside a module
	Files  []string // the names of the files the driver parsed, as the go command gave them
}

// Home returns the import path of the package that p belongs with: for
// the external test package "x_test" of package x (a package named *_test
// whose files are all _test.go files), x; for any other package its own
// path. A package that is merely named or placed like an external test is
// its own home.
func (p Package) Home() string {
	base, ok := strings.CutSuffix(p.Path, "_test")
	if !ok || !strings.HasSuffix(p.Name, "_test") || len(p.Files) == 0 {
		return p.Path
	}
	for _, f := range p.Files {
		if !strings.HasSuffix(f, "_test.go") {
			return p.Path
		}
	}
	return base
}

// Contains reports whether p is in the authority: it belongs to the
// module of a tree, its home lies in the tree outside any ignored
// directory, and one of its files lies in the tree's directory for it.
// Files elsewhere (the cgo-generated files a driver parses instead of the
// originals) do not place a package; a package with no file where it
// should be is outside.
func (c *Config) Contains(p Package) bool {
	_, ok := c.Root(p)
	return ok
}

// Root returns the root of the repository that holds p, if p is in the
// authority: the directory of its files less the tree's directory for it.
// Facades and grants place packages below that root.
func (c *Config) Root(p Package) (string, bool) {
	home := p.Home()
	for _, t := range c.Trees {
		if p.Module == "" || p.Module != t.Module {
			continue
		}
		rel, ok := Below(home, t.Module)
		if !ok || !within(rel, t.Path) || ignoredDir(rel) {
			continue
		}
		if root, ok := rootOf(p.Files, path.Join(t.Dir, rel)); ok {
			return root, true
		}
	}
	return "", false
}

// rootOf returns, for the first of files whose directory ends with the
// relative directory want, that directory less want.
func rootOf(files []string, want string) (string, bool) {
	for _, f := range files {
		dir := path.Dir(filepath.ToSlash(f))
		if rest, ok := strings.CutSuffix(dir, want); ok && (rest == "" || strings.HasSuffix(rest, "/")) {
			return strings.TrimSuffix(rest, "/"), true
		}
	}
	return "", false
}

// ModuleOf returns the module of the repository whose package tree holds
// the import path p: the one with the longest path at or above p.
func (c *Config) ModuleOf(p string) (Module, bool) {
	var best Module
	for _, m := range c.Modules {
		if _, ok := Below(p, m.Path); ok && len(m.Path) > len(best.Path) {
			best = m
		}
	}
	return best, best.Path != ""
}

// Holds reports whether the package at import path ip of the repository
// is p, or with tree, whether p lies in the package tree at ip: p belongs
// to the module of the repository that holds ip (by its module path, not
// by a prefix of it), its home is ip or lies below it, outside any
// ignored directory, and one of its files lies in the matching directory
// of that module, below root, the root of the repository (from Root), or
// if root is "", in a directory that ends so. A module telha.dev holding
// jobs/ is not telha.dev/jobs, and neither is a module telha.dev/jobs/contrib
// nor, with a root, a module telha.dev/jobs of another repository.
func (c *Config) Holds(ip string, tree bool, p Package, root string) bool {
	m, ok := c.ModuleOf(ip)
	if !ok || p.Module != m.Path {
		return false
	}
	home := p.Home()
	rel, ok := Below(home, ip)
	if !ok || rel != "" && !tree {
		return false
	}
	modRel, _ := Below(home, m.Path)
	if ignoredDir(modRel) {
		return false
	}
	got, ok := rootOf(p.Files, path.Join(m.Dir, modRel))
	return ok && (root == "" || got == root)
}

// Granted returns the grant of the capability to package p, if any; root
// is the root of the repository, or "" if unknown (see Holds).
func (c *Config) Granted(p Package, capability, root string) (Grant, bool) {
	for _, g := range c.Grants {
		if g.Capability == capability && c.Holds(g.Package, false, p, root) {
			return g, true
		}
	}
	return Grant{}, false
}

// Serving reports whether p lies in a package tree that serves requests.
func (c *Config) Serving(p Package, root string) bool {
	for _, tree := range c.Serves {
		if c.Holds(tree, true, p, root) {
			return true
		}
	}
	return false
}

// IsFixture reports whether the directory dir, relative to the
// repository root and slash-separated, is or lies in a directory of
// deliberate violations.
func (c *Config) IsFixture(dir string) bool {
	elems := strings.Split(dir, "/")
	for _, f := range c.Fixtures {
		pattern := strings.Split(f, "/")
		if len(pattern) > len(elems) {
			continue
		}
		match := true
		for i, p := range pattern {
			if ok, _ := path.Match(p, elems[i]); !ok {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// InTree reports whether a symbol's package, known only by its import
// path (as a //go:linkname directive names it), lies in a tree of the
// authority. Where the package itself is at hand, Contains decides.
func (c *Config) InTree(importPath string) bool {
	for _, t := range c.Trees {
		if rel, ok := Below(importPath, t.Root()); ok && !ignoredDir(rel) {
			return true
		}
	}
	return false
}

// MayReach reports whether a package with this import path could be in
// the authority or be a binding, judged by its path alone: a package that
// reaches none such can use nothing that the rules forbid, so they skip
// it. Being cheap and generous, it never decides a finding.
func (c *Config) MayReach(importPath string) bool {
	for _, t := range c.Trees {
		if _, ok := Below(importPath, t.Module); ok {
			return true
		}
	}
	return c.IsBinding(importPath)
}

// Reaches reports whether pkg or a package it imports, directly or not,
// has an import path that match accepts. For a package loaded from export
// data, the imports are those whose types its API shows, which is what
// matters to a rule that looks for types.
func Reaches(pkg *types.Package, match func(importPath string) bool) bool {
	seen := map[*types.Package]bool{pkg: true}
	stack := []*types.Package{pkg}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if match(p.Path()) {
			return true
		}
		for _, imp := range p.Imports() {
			if !seen[imp] {
				seen[imp] = true
				stack = append(stack, imp)
			}
		}
	}
	return false
}

// IsBinding reports whether the package with this import path is a raw
// engine binding.
func (c *Config) IsBinding(importPath string) bool {
	for _, b := range c.Bindings {
		if _, ok := Below(importPath, b); ok {
			return true
		}
	}
	return false
}

// CLib returns the name of the first engine C library that text mentions,
// in any letter case, or "": the name at the start of a word, or after -l
// or lib ("rocksdb_open", "rocksdb/c.h", "-lrocksdb", "librocksdb.so"),
// not inside another word ("grocksdb").
func (c *Config) CLib(text string) string {
	for i, lib := range c.CLibs {
		if c.clibs[i].MatchString(text) {
			return lib
		}
	}
	return ""
}

// Below reports whether import path p is root or lies below it, and
// returns p relative to root ("" for root itself). It compares whole path
// elements: telha.dev/core/storagex is not below telha.dev/core/storage.
func Below(p, root string) (rel string, ok bool) {
	if p == root {
		return "", true
	}
	rest, ok := strings.CutPrefix(p, root+"/")
	return rest, ok && rest != ""
}

// within reports whether the module-relative path rel lies in the tree.
func within(rel, tree string) bool {
	if tree == "" {
		return true
	}
	_, ok := Below(rel, tree)
	return ok
}

// ignoredDir reports whether a slash-separated relative path has an
// element that the go command never matches with "./...": testdata, or a
// name starting with "_" or ".", and vendor, which holds others' code.
func ignoredDir(rel string) bool {
	for elem := range strings.SplitSeq(rel, "/") {
		if elem == "testdata" || elem == "vendor" || strings.HasPrefix(elem, "_") || strings.HasPrefix(elem, ".") {
			return true
		}
	}
	return false
}
