package capability

import (
	"fmt"
	"go/ast"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/ast/inspector"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/rule"
)

// loaders are the C functions that load a shared library or find a symbol
// in one.
var loaders = []string{"dlopen", "dlmopen", "dlsym", "dlvsym"}

var loaderCall = regexp.MustCompile(`\b(dlopen|dlmopen|dlsym|dlvsym)\s*\(`)

// windowsLoaders are the Go functions that load a DLL or find a procedure
// in one, by package.
var windowsLoaders = map[string][]string{
	"syscall":                  {"LoadDLL", "MustLoadDLL", "NewLazyDLL", "LoadLibrary", "GetProcAddress"},
	"golang.org/x/sys/windows": {"LoadDLL", "MustLoadDLL", "NewLazyDLL", "NewLazySystemDLL", "LoadLibrary", "LoadLibraryEx", "GetProcAddress", "GetProcAddressByOrdinal"},
}

// cSourceExts are the extensions of the C and C++ files and headers that
// cgo compiles.
var cSourceExts = []string{".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".m"}

// dynamicLoading reports the loading of shared libraries at run time: the
// calls of loaders in the preambles and the C files of the package, the Go
// uses of them through cgo, and the Windows loaders.
func (c *checker) dynamicLoading(files []*ast.File) {
	for _, group := range native.Preambles(files) {
		for _, l := range native.PreambleLines(group) {
			if m := loaderCall.FindStringSubmatch(l.Text); m != nil {
				c.report(authority.Dlopen, rule.At(l.Pos), "%s in a cgo preamble", m[1])
			}
		}
	}
	for _, name := range native.SourceFiles(c.p.Pass) {
		if !slices.Contains(cSourceExts, filepath.Ext(name)) {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		var calls []string
		for i, l := range strings.Split(native.StripCComments(string(data)), "\n") {
			if m := loaderCall.FindStringSubmatch(l); m != nil {
				calls = append(calls, fmt.Sprintf("%s at line %d", m[1], i+1))
			}
		}
		if len(calls) > 0 {
			// On the Go line that compiles the file: golangci-lint drops
			// findings in non-Go files.
			c.report(authority.Dlopen, rule.At(native.Anchor(files)), "%s in %s", strings.Join(calls, ", "), filepath.Base(name))
		}
	}
	for _, cn := range native.CNames(files) {
		if slices.Contains(loaders, cn.Name) {
			c.report(authority.Dlopen, cn.Ident, "C.%s", cn.Name)
		}
	}
	for id := range inspector.All[*ast.Ident](c.p.Inspector) {
		obj := c.p.TypesInfo.Uses[id]
		if obj == nil || obj.Pkg() == nil {
			continue
		}
		if slices.Contains(windowsLoaders[obj.Pkg().Path()], obj.Name()) {
			c.report(authority.Dlopen, id, "%s.%s", obj.Pkg().Name(), obj.Name())
		}
	}
}
