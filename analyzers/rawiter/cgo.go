package rawiter

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/rule"
)

// checkCgo reports the cgo of the package that reaches an engine's C
// library:
//   - the lines of its preambles and non-Go source files that mention the
//     library outside a trailing // comment, or include (#include "x.h", found beside the file or in a
//     -I directory of its #cgo CFLAGS) a header that does, transitively;
//   - the Go uses of C names that contain it (C.rocksdb_open);
//   - when the package's C code mentions the library, the Go uses of the C
//     names that this code defines (wrappers such as C.open_db around
//     rocksdb_open), and the Go string literals that name the library (for
//     dlopen and dlsym).
func checkCgo(p *rule.Pass, sources []string) {
	c := &cCode{p: p, dirs: native.Dirs(p.Pass), seen: make(map[string]string)}
	preambles := native.Preambles(p.Files)
	for _, group := range preambles {
		for _, cm := range group.List {
			c.includeDirs(cm.Text)
		}
	}
	for _, group := range preambles {
		for _, cm := range group.List {
			offset := 0
			for _, line := range strings.SplitAfter(cm.Text, "\n") {
				if why := c.line(line, c.dirs); why != "" {
					p.Reportf(rule.At(cm.Pos()+token.Pos(offset)), advice, "cgo preamble line %q %s", preambleLine(line), why)
				}
				offset += len(line)
			}
			c.text.WriteString(cm.Text + "\n")
		}
	}
	for _, name := range sources {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if filepath.Ext(name) != ".syso" {
			c.text.Write(data)
		}
		var tf *token.File
		for i, line := range strings.Split(string(data), "\n") {
			if why := c.line(line, []string{filepath.Dir(name)}); why != "" {
				if tf == nil {
					tf = native.AddFile(p.Fset, name, data)
				}
				p.Reportf(rule.At(tf.LineStart(i+1)), advice, "%s %s", filepath.Base(name), why)
			}
		}
	}
	c.names()
	if c.lib != "" && len(preambles) > 0 {
		c.strings()
	}
}

// cCode is the C side of a package.
type cCode struct {
	p       *rule.Pass
	dirs    []string          // the package's directories
	incDirs []string          // the -I directories of its #cgo CFLAGS
	text    strings.Builder   // its C code, and the headers it includes
	lib     string            // the engine library its C code uses, if any
	seen    map[string]string // included files: the library they use, or ""
}

var (
	include = regexp.MustCompile(`^\s*#\s*include\s*"([^"]+)"`)
	cflags  = regexp.MustCompile(`^\s*#cgo\b[^:]*\bCFLAGS:(.*)$`)
)

// includeDirs records the -I directories of a #cgo CFLAGS line in text.
func (c *cCode) includeDirs(text string) {
	for _, line := range strings.Split(text, "\n") {
		m := cflags.FindStringSubmatch(preambleLine(line))
		if m == nil {
			continue
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
}

// line returns why a line of C code (or of a cgo preamble) reaches an
// engine library, or "": it names the library, or includes a header,
// from beside the file (dirs) or from an -I directory, that does.
func (c *cCode) line(line string, dirs []string) string {
	line = preambleLine(line)
	if lib := c.p.Config.CLib(line); lib != "" {
		c.lib = lib
		return fmt.Sprintf("uses %s, the C library of an engine,", lib)
	}
	m := include.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	for _, dir := range slices.Concat(dirs, c.incDirs) {
		if lib := c.header(filepath.Join(dir, m[1])); lib != "" {
			c.lib = lib
			return fmt.Sprintf("includes %s, which uses %s, the C library of an engine,", m[1], lib)
		}
	}
	return ""
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
	c.text.Write(data)
	for _, line := range strings.Split(string(data), "\n") {
		if lib := c.p.Config.CLib(line); lib != "" {
			c.seen[name] = lib
			return lib
		}
		if m := include.FindStringSubmatch(line); m != nil {
			if lib := c.header(filepath.Join(filepath.Dir(name), m[1])); lib != "" {
				c.seen[name] = lib
				return lib
			}
		}
	}
	return ""
}

// names reports the Go uses of C names that contain an engine library's
// name, or that the package's C code defines if it uses one: one finding
// per line, for the function called there rather than the types cgo
// spells out around the call.
func (c *cCode) names() {
	type line struct {
		file string
		line int
	}
	best := make(map[line]native.CName)
	var lines []line
	for _, cn := range native.CNames(c.p.Files) {
		if c.p.Config.CLib(cn.Name) == "" && (c.lib == "" || !definesC(c.text.String(), cn.Name)) {
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
			c.p.Reportf(cn.Ident, advice, "C.%s, defined by C code that uses %s, the C library of an engine,", cn.Name, c.lib)
		}
	}
}

// strings reports the Go string literals of a cgo package that name an
// engine library: names for dlopen and dlsym.
func (c *cCode) strings() {
	for _, f := range c.p.Files {
		if native.IsCgoSupport(f) {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if lib := c.p.Config.CLib(lit.Value); lib != "" {
					c.p.Reportf(lit, advice, "string %s, naming %s, the C library of an engine, in a package whose C code uses it,", lit.Value, lib)
				}
			}
			return true
		})
	}
}

// preambleLine returns a line of a preamble comment or of C code without
// the Go comment markers and without a trailing // comment.
func preambleLine(line string) string {
	line = strings.TrimSpace(line)
	for _, marker := range []string{"//", "/*", "*/"} {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSuffix(line, marker), marker))
	}
	if i := strings.Index(line, " //"); i > 0 {
		line = strings.TrimSpace(line[:i])
	}
	return line
}

// definesC reports whether the C code defines name: as a function (a
// name, its parameters and a body), a type, a struct, union or enum tag,
// or a macro.
func definesC(code, name string) bool {
	q := regexp.QuoteMeta(name)
	forms := []string{
		`\b` + q + `\s*\([^;{}]*\)\s*\{`,
		`\btypedef\b[^;]*\b` + q + `\s*;`,
		`\b(struct|union|enum)\s+` + q + `\s*\{`,
		`#\s*define\s+` + q + `\b`,
	}
	re := regexp.MustCompile(fmt.Sprintf("(%s)", strings.Join(forms, ")|(")))
	return re.MatchString(code)
}
