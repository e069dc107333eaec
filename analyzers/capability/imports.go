package capability

import (
	"go/ast"
	"path/filepath"
	"strconv"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/rule"
)

// importCapabilities are the capabilities that importing a package gives,
// by import path (cgo's import "C" aside).
var importCapabilities = map[string]string{
	"unsafe": authority.Unsafe,
	"plugin": authority.Plugin,
	// purego calls C functions of libraries it loads by name, without cgo.
	"github.com/ebitengine/purego": authority.Dlopen,
}

// imports reports the imports that give a capability: one finding per
// import (cgo's, in the files cgo generates, as native.CgoImport finds it).
func (c *checker) imports(files []*ast.File) {
	for _, name := range swigFiles(c.p.OtherFiles) {
		// The go command runs SWIG on it, which writes cgo.
		c.report(authority.Cgo, rule.At(native.Anchor(files)), "SWIG file %s", name)
	}
	for _, f := range files {
		cgoImport := native.CgoImport(f)
		if cgoImport != nil {
			c.report(authority.Cgo, cgoImport, `import "C"`)
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil || imp == cgoImport || path == "C" {
				continue
			}
			if path == "unsafe" && imp.Name != nil && imp.Name.Name == "_" {
				continue // only //go:linkname needs it, and each directive is reported
			}
			if capability := importCapabilities[path]; capability != "" {
				c.report(capability, imp, "import of %q", path)
				continue
			}
			for prefix, capability := range importCapabilities {
				if below(path, prefix) {
					c.report(capability, imp, "import of %q", path)
				}
			}
		}
	}
}

// below reports whether import path p lies below prefix, by whole path
// elements.
func below(p, prefix string) bool {
	_, ok := authority.Below(p, prefix)
	return ok && p != prefix
}

// swigFiles returns the base names of the SWIG files among the package's
// other files. (A package with one does not build without SWIG, so the
// rule's testdata cannot hold one: swigFiles is tested on its own.)
func swigFiles(names []string) []string {
	var out []string
	for _, name := range names {
		if ext := filepath.Ext(name); ext == ".swig" || ext == ".swigcxx" {
			out = append(out, filepath.Base(name))
		}
	}
	return out
}
