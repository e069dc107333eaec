package capability

import (
	"go/ast"
	"strconv"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/native"
)

// importCapabilities are the capabilities that importing a package gives,
// by import path ("C" stands for cgo's import).
var importCapabilities = map[string]string{
	"unsafe": authority.Unsafe,
	"C":      authority.Cgo,
	"plugin": authority.Plugin,
	// purego calls C functions of libraries it loads by name, without cgo.
	"github.com/ebitengine/purego": authority.Dlopen,
}

// imports reports the imports that give a capability: one finding per
// import. In a file that cgo generated from an author's file (x.cgo1.go),
// import "C" stands as a blank import of unsafe: the one that keeps the
// preamble as its doc comment, or the first.
func (c *checker) imports(files []*ast.File) {
	for _, f := range files {
		var cgoImport *ast.ImportSpec
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				continue
			}
			blank := imp.Name != nil && imp.Name.Name == "_"
			switch {
			case path == "unsafe" && blank:
				// Only //go:linkname needs it, and each directive is
				// reported; in cgo's output, it may be import "C".
				if native.IsCgoOutput(f) && (cgoImport == nil || cgoImport.Doc == nil && imp.Doc != nil) {
					cgoImport = imp
				}
			case importCapabilities[path] != "":
				c.report(importCapabilities[path], imp, "import of %q", path)
			default:
				for prefix, capability := range importCapabilities {
					if below(path, prefix) {
						c.report(capability, imp, "import of %q", path)
					}
				}
			}
		}
		if cgoImport != nil {
			c.report(authority.Cgo, cgoImport, `import "C"`)
		}
	}
}

// below reports whether import path p lies below prefix, by whole path
// elements.
func below(p, prefix string) bool {
	_, ok := authority.Below(p, prefix)
	return ok && p != prefix
}
