package rawiter

import (
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/rule"
)

// checkCgo reports the cgo of the package that reaches an engine's C
// library: the lines of its preambles and non-Go files that mention the
// library, the Go uses of C names that contain it, and, when the package's
// C code mentions the library, the Go uses of the C names that this code
// defines (wrappers such as C.open_db around rocksdb_open).
func checkCgo(p *rule.Pass, sources []string) {
	var code strings.Builder // the package's own C code
	tainted := ""            // the library its C code mentions
	for _, group := range native.Preambles(p.Files) {
		for _, c := range group.List {
			offset := 0
			for _, line := range strings.SplitAfter(c.Text, "\n") {
				if lib := p.Config.CLib(line); lib != "" {
					p.Reportf(rule.At(c.Pos()+token.Pos(offset)), advice,
						"cgo preamble line %q uses %s, the C library of an engine,", preambleLine(line), lib)
					tainted = lib
				}
				offset += len(line)
			}
			code.WriteString(c.Text + "\n")
		}
	}
	for _, name := range sources {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if filepath.Ext(name) != ".syso" {
			code.Write(data)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if lib := p.Config.CLib(line); lib != "" {
				tf := native.AddFile(p.Fset, name, data)
				p.Reportf(rule.At(tf.LineStart(i+1)), advice, "%s uses %s, the C library of an engine,", filepath.Base(name), lib)
				tainted = lib
				break
			}
		}
	}
	// One finding per line, for the function called there rather than the
	// types cgo spells out around the call.
	type line struct {
		file string
		line int
	}
	best := make(map[line]native.CName)
	var lines []line
	for _, cn := range native.CNames(p.Files) {
		if p.Config.CLib(cn.Name) == "" && (tainted == "" || !definesC(code.String(), cn.Name)) {
			continue
		}
		posn := p.Fset.Position(cn.Ident.Pos())
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
		if lib := p.Config.CLib(cn.Name); lib != "" {
			p.Reportf(cn.Ident, advice, "C.%s of %s, the C library of an engine,", cn.Name, lib)
		} else {
			p.Reportf(cn.Ident, advice, "C.%s, defined by C code that uses %s, the C library of an engine,", cn.Name, tainted)
		}
	}
}

// preambleLine returns a line of a preamble comment without the Go
// comment markers and without a trailing C comment.
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
