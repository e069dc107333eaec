package rawiter

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/rule"
)

// checkCgo reports the cgo of the package that reaches an engine's C
// library, reading C code and cgo directives, never comments:
//   - the lines of its preambles that name the library, or include
//     (#include "x.h", found beside the file or in an -I directory of its
//     #cgo CFLAGS) a header that does, transitively; its C, C++, header
//     and assembly files that do, and its object files that mention it, at
//     the import "C" that compiles them (the lines of the file in the
//     message: golangci-lint drops findings in non-Go files);
//   - the Go uses of C names that contain the library's name
//     (C.rocksdb_open), or that name a function, macro or type that the
//     package's C code defines in terms of the library, directly or
//     through its other definitions (C.open_db around rocksdb_open); an
//     unrelated C function beside them is not reported;
//   - the Go string literals naming the library that are passed to C
//     (C.dlopen(C.CString("librocksdb.so"), ...)), directly or through a
//     constant or variable; a string elsewhere, a metrics label, is not.
func checkCgo(p *rule.Pass, files []*ast.File, sources []string) {
	c := &cCode{p: p, dirs: native.Dirs(p.Pass), seen: make(map[string]string)}
	preambles := native.Preambles(files)
	var lines [][]native.CLine
	for _, group := range preambles {
		lines = append(lines, native.PreambleLines(group))
	}
	for _, group := range lines {
		for _, l := range group {
			c.includeDirs(l.Text)
		}
	}
	for _, group := range lines {
		for _, l := range group {
			if why := c.line(l.Text, c.dirs); why != "" {
				p.Reportf(rule.At(l.Pos), advice, "cgo preamble line %q %s", strings.TrimSpace(l.Text), why)
			}
			c.code.WriteString(l.Text + "\n")
		}
	}
	// Findings about the C side go on the Go line that brings it in (the
	// import "C"): golangci-lint drops findings in non-Go files.
	anchor := rule.At(native.Anchor(files))
	for _, name := range sources {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if filepath.Ext(name) == ".syso" {
			if lib := p.Config.CLib(string(data)); lib != "" {
				p.Reportf(anchor, advice, "object file %s mentions %s, the C library of an engine,", filepath.Base(name), lib)
			}
			continue
		}
		lib, lines := "", []string(nil)
		for i, l := range strings.Split(native.StripCComments(string(data)), "\n") {
			if l := c.lineLib(l, []string{filepath.Dir(name)}); l != "" {
				lib, lines = cmp.Or(lib, l), append(lines, strconv.Itoa(i+1))
			}
			c.code.WriteString(l + "\n")
		}
		if lib != "" {
			p.Reportf(anchor, advice, "%s, on lines %s, uses %s, the C library of an engine,", filepath.Base(name), strings.Join(lines, ", "), lib)
		}
	}
	c.define()
	c.names(files)
	c.strings(files)
}

// cCode is the C side of a package.
type cCode struct {
	p       *rule.Pass
	dirs    []string          // the package's directories
	incDirs []string          // the -I directories of its #cgo CFLAGS
	code    strings.Builder   // its C code, and the headers it includes, without comments
	seen    map[string]string // included files: the library they use, or ""
	// reaching maps the names the C code defines to the engine library
	// their definitions reach, directly or through other definitions.
	reaching map[string]string
}

var (
	include = regexp.MustCompile(`^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)`)
	cflags  = regexp.MustCompile(`^\s*#cgo\b[^:]*\bCFLAGS:(.*)$`)
)

// includeDirs records the -I directories of a #cgo CFLAGS line.
func (c *cCode) includeDirs(line string) {
	m := cflags.FindStringSubmatch(line)
	if m == nil {
		return
	}
	for _, flag := range strings.Fields(m[1]) {
		dir, ok := strings.CutPrefix(flag, "-I")
		if !ok || dir == "" {
			continue
		}
		for _, pkgDir := range c.dirs {
			dir := strings.ReplaceAll(dir, "${SRCDIR}", pkgDir)
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(pkgDir, dir)
			}
			c.incDirs = append(c.incDirs, dir)
		}
	}
}

// line returns why a line of C code (or a cgo directive), without
// comments, reaches an engine library, or "": it names the library, or
// includes a header, from beside the file (dirs, for "x.h") or from an -I
// directory, that does.
func (c *cCode) line(line string, dirs []string) string {
	if lib := c.p.Config.CLib(line); lib != "" {
		return fmt.Sprintf("uses %s, the C library of an engine,", lib)
	}
	if name, lib := c.included(line, dirs); lib != "" {
		return fmt.Sprintf("includes %s, which uses %s, the C library of an engine,", name, lib)
	}
	return ""
}

// lineLib returns the engine library that a line of C code, without
// comments, reaches (see line), or "".
func (c *cCode) lineLib(line string, dirs []string) string {
	if lib := c.p.Config.CLib(line); lib != "" {
		return lib
	}
	_, lib := c.included(line, dirs)
	return lib
}

// included returns the header that an #include line names and the engine
// library that it uses, or "" for the library: a header "x.h" is looked
// for in dirs and the -I directories, <x.h> in the -I directories (the
// system's are not read).
func (c *cCode) included(line string, dirs []string) (name, lib string) {
	m := include.FindStringSubmatch(line)
	if m == nil {
		return "", ""
	}
	name, search := m[1], slices.Concat(dirs, c.incDirs)
	if name == "" {
		name, search = m[2], c.incDirs
	}
	for _, dir := range search {
		if lib := c.header(filepath.Join(dir, name)); lib != "" {
			return name, lib
		}
	}
	return name, ""
}

// header returns the engine library that the header file name, or a
// header it includes, uses, or "".
func (c *cCode) header(name string) string {
	name = filepath.Clean(name)
	if lib, ok := c.seen[name]; ok {
		return lib
	}
	c.seen[name] = ""
	data, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	code := native.StripCComments(string(data))
	c.code.WriteString(code + "\n")
	for _, line := range strings.Split(code, "\n") {
		lib := c.p.Config.CLib(line)
		if lib == "" {
			_, lib = c.included(line, []string{filepath.Dir(name)})
		}
		if lib != "" {
			c.seen[name] = lib
			return lib
		}
	}
	return ""
}

// define computes, for each name the C code defines, the engine library
// its definition reaches: named in it, or reached by a name it uses.
func (c *cCode) define() {
	defs := native.CDefinitions(c.code.String())
	c.reaching = make(map[string]string)
	for _, d := range defs {
		if lib := c.p.Config.CLib(d.Body); lib != "" {
			c.reaching[d.Name] = lib
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range defs {
			if c.reaching[d.Name] != "" {
				continue
			}
			for _, name := range identifiers(d.Body) {
				if lib := c.reaching[name]; lib != "" && name != d.Name {
					c.reaching[d.Name], changed = lib, true
					break
				}
			}
		}
	}
}

var cIdent = regexp.MustCompile(`[A-Za-z_]\w*`)

// identifiers returns the identifiers of C code.
func identifiers(code string) []string { return cIdent.FindAllString(code, -1) }

// names reports the Go uses of C names that contain an engine library's
// name, or that name a C definition reaching one: one finding per line,
// for the function called there rather than the types cgo spells out
// around the call.
func (c *cCode) names(files []*ast.File) {
	type line struct {
		file string
		line int
	}
	best := make(map[line]native.CName)
	var lines []line
	for _, cn := range native.CNames(files) {
		if c.p.Config.CLib(cn.Name) == "" && c.reaching[cn.Name] == "" {
			continue
		}
		posn := c.p.Fset.Position(cn.Ident.Pos())
		l := line{posn.Filename, posn.Line}
		old, ok := best[l]
		if !ok {
			lines = append(lines, l)
		}
		if !ok || cn.Func && !old.Func {
			best[l] = cn
		}
	}
	for _, l := range lines {
		cn := best[l]
		if lib := c.p.Config.CLib(cn.Name); lib != "" {
			c.p.Reportf(cn.Ident, advice, "C.%s of %s, the C library of an engine,", cn.Name, lib)
		} else {
			c.p.Reportf(cn.Ident, advice, "C.%s, defined by C code that uses %s, the C library of an engine,", cn.Name, c.reaching[cn.Name])
		}
	}
}

// strings reports the Go string literals naming an engine library that
// reach C: in the arguments of a call of a C function, directly, inside
// other expressions (C.CString("librocksdb.so")), or through a constant or
// variable that such an argument names and that is set to one.
func (c *cCode) strings(files []*ast.File) {
	info := c.p.TypesInfo
	named := make(map[types.Object]*ast.BasicLit) // constants and variables set to such a literal
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, v := range n.Values {
					if lit := c.libString(v); lit != nil && i < len(n.Names) {
						named[info.Defs[n.Names[i]]] = lit
					}
				}
			case *ast.AssignStmt:
				for i, v := range n.Rhs {
					if id, ok := n.Lhs[min(i, len(n.Lhs)-1)].(*ast.Ident); ok && len(n.Lhs) == len(n.Rhs) {
						if lit := c.libString(v); lit != nil {
							named[info.ObjectOf(id)] = lit
						}
					}
				}
			}
			return true
		})
	}
	reported := make(map[token.Pos]bool)
	report := func(at ast.Node, lit *ast.BasicLit) {
		if reported[at.Pos()] {
			return
		}
		reported[at.Pos()] = true
		lib := c.p.Config.CLib(lit.Value)
		c.p.Reportf(at, advice, "string %s, naming %s, the C library of an engine, passed to C", lit.Value, lib)
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isCCall(call) {
				return true
			}
			for _, arg := range call.Args {
				ast.Inspect(arg, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.BasicLit:
						if lit := c.libString(n); lit != nil {
							report(n, lit)
						}
					case *ast.Ident:
						if lit := named[info.Uses[n]]; lit != nil {
							report(n, lit)
						}
					}
					return true
				})
			}
			return true
		})
	}
}

// libString returns e if it is a string literal that names an engine
// library.
func (c *cCode) libString(e ast.Expr) *ast.BasicLit {
	lit, ok := ast.Unparen(e).(*ast.BasicLit)
	if ok && lit.Kind == token.STRING && c.p.Config.CLib(lit.Value) != "" {
		return lit
	}
	return nil
}

// isCCall reports whether call calls a C function: C.f(...), or
// _Cfunc_f(...) in the files cgo generates.
func isCCall(call *ast.CallExpr) bool {
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		x, ok := fun.X.(*ast.Ident)
		return ok && x.Name == "C"
	case *ast.Ident:
		return strings.HasPrefix(fun.Name, "_Cfunc_")
	}
	return false
}
