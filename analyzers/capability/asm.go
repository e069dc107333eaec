package capability

import (
	"os"
	"path/filepath"
	"regexp"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/rule"
)

// textDirective starts the definition of a function in Go assembly.
var textDirective = regexp.MustCompile(`^\s*TEXT\b`)

// assembly reports the code of the package outside Go, in the files the
// build compiles (those of other architectures are analyzed in the builds
// of telhavet.builds that compile them): each function that an assembly
// file defines, at its TEXT directive, or the file's first line if it
// defines none; each object file, at its start.
func (c *checker) assembly() {
	for _, name := range c.p.OtherFiles {
		switch filepath.Ext(name) {
		case ".s", ".S", ".sx":
			data, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			lines := native.FileLines(c.p.Fset, name, data)
			texts := 0
			for _, l := range lines {
				if textDirective.MatchString(l.Text) {
					texts++
					c.report(authority.Asm, rule.At(l.Pos), "assembly in %s", filepath.Base(name))
				}
			}
			if texts == 0 && len(lines) > 0 {
				c.report(authority.Asm, rule.At(lines[0].Pos), "assembly file %s", filepath.Base(name))
			}
		case ".syso":
			data, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			c.report(authority.Asm, rule.At(native.AddFile(c.p.Fset, name, data).LineStart(1)), "object file %s", filepath.Base(name))
		}
	}
}
