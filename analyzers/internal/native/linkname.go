package native

import (
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// A Link is a reference, by symbol name, from a package to a declaration
// of another: a //go:linkname directive or a symbol in an assembly file.
type Link struct {
	Asm    bool      // a symbol in an assembly file, not a //go:linkname
	Pos    token.Pos // the directive, or the line of the assembly file
	Symbol string    // the symbol as written: "telha.dev/core/storage.(*Key).init"
	Pkg    string    // the import path of the package the symbol belongs to
}

// What describes the link for messages.
func (l Link) What() string {
	if l.Asm {
		return "assembly reference to " + l.Symbol
	}
	return "//go:linkname to " + l.Symbol
}

// Linknames returns the two-argument //go:linkname directives of the
// files, which pull a symbol of another package in under a local name.
// The compiler honours them only in files that import unsafe.
func Linknames(info *types.Info, files []*ast.File) []Link {
	var out []Link
	for _, file := range files {
		if !importsUnsafe(info, file) || IsCgoSupport(file) {
			continue
		}
		for _, group := range file.Comments {
			for _, c := range group.List {
				rest, ok := strings.CutPrefix(c.Text, "//go:linkname ")
				if !ok {
					continue
				}
				if fields := strings.Fields(rest); len(fields) == 2 {
					out = append(out, Link{Pos: c.Pos(), Symbol: fields[1], Pkg: SymbolPackage(fields[1])})
				}
			}
		}
	}
	return out
}

func importsUnsafe(info *types.Info, file *ast.File) bool {
	for _, imp := range file.Imports {
		if pkg := info.PkgNameOf(imp); pkg != nil && pkg.Imported().Path() == "unsafe" {
			return true
		}
	}
	return false
}

// SymbolPackage returns the import path in a linker symbol such as
// "telha.dev/core/storage.(*Key).init" or "example.com/p.F[go.shape.int]":
// what precedes the first dot after the last slash that comes before any
// bracket or parenthesis.
func SymbolPackage(sym string) string {
	head := sym
	if i := strings.IndexAny(head, "[("); i >= 0 {
		head = head[:i]
	}
	slash := strings.LastIndexByte(head, '/') + 1
	if dot := strings.IndexByte(head[slash:], '.'); dot >= 0 {
		return sym[:slash+dot]
	}
	return head
}

// asmSymbol matches a symbol of another package in Go assembly, where the
// package path's slashes are written ∕ (U+2215) and its final dot · (U+00B7):
// "telha.dev∕core∕storage·keyFromBytes(SB)".
var asmSymbol = regexp.MustCompile(`([\pL\pN_.\-∕~%]+)·([\pL\pN_]+)`)

// AsmLinks returns the symbols of other packages that the package's
// assembly files name, each with the position of its line in the file
// set (to which AsmLinks adds the assembly files).
func AsmLinks(pass *analysis.Pass, files []string) []Link {
	var out []Link
	for _, name := range files {
		if ext := filepath.Ext(name); ext != ".s" && ext != ".S" && ext != ".sx" {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		var tf *token.File
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range asmSymbol.FindAllStringSubmatch(line, -1) {
				if tf == nil {
					tf = AddFile(pass.Fset, name, data)
				}
				pkg := strings.ReplaceAll(m[1], "∕", "/")
				out = append(out, Link{Asm: true, Pos: tf.LineStart(i + 1), Symbol: pkg + "." + m[2], Pkg: pkg})
			}
		}
	}
	return out
}
