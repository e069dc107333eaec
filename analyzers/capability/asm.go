package capability

import (
	"go/ast"
	"path/filepath"
	"slices"
	"strings"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/rule"
)

// assembly reports the code of the package outside Go, in the files the
// build compiles (those of other architectures are analyzed in the builds
// of telhavet.builds that compile them), on the Go lines that bring it in,
// which every driver can show (golangci-lint drops findings in non-Go
// files): each function declared without a body, implemented in an
// assembly file, or the package's first line if none is declared; each
// object file, at the package's first import "C" or first line.
func (c *checker) assembly(files []*ast.File) {
	var asm, objects []string
	for _, name := range c.p.OtherFiles {
		switch filepath.Ext(name) {
		case ".s", ".S", ".sx":
			asm = append(asm, filepath.Base(name))
		case ".syso":
			objects = append(objects, filepath.Base(name))
		}
	}
	for _, name := range objects {
		c.report(authority.Asm, rule.At(native.Anchor(files)), "object file %s", name)
	}
	if len(asm) == 0 {
		return
	}
	linked := make(map[string]bool) // implemented by //go:linkname, reported as such
	for _, link := range native.Linknames(files) {
		linked[link.Local] = true
	}
	declared := false
	for _, f := range files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body != nil || linked[fn.Name.Name] {
				continue
			}
			declared = true
			c.report(authority.Asm, fn.Name, "function %s, implemented in assembly (%s)", fn.Name.Name, strings.Join(asm, ", "))
		}
	}
	if !declared {
		c.report(authority.Asm, rule.At(native.Anchor(files)), "assembly (%s)", strings.Join(slices.Compact(asm), ", "))
	}
}
