package native

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// A Link is a //go:linkname directive that pulls in a declaration of
// another package by its symbol name.
//
// Assembly cannot do the same: its symbols cannot name a package whose
// import path holds a dot, as every module of this repository and every
// binding does ("expected '(', found ."), so it reaches them only through
// a Go declaration without a body, whose signature says what it takes.
type Link struct {
	Pos    token.Pos // the directive
	Symbol string    // the symbol as written: "telha.dev/core/storage.(*Key).init"
	Pkg    string    // the import path of the package the symbol belongs to
}

// What describes the link for messages.
func (l Link) What() string { return "//go:linkname to " + l.Symbol }

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
