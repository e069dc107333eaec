package native

import (
	"go/ast"
	"go/token"
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
	Local  string    // the local name the directive gives a symbol
	Symbol string    // the symbol as written: "telha.dev/core/storage.(*Key).init"; "" for the one-argument form
	Pkg    string    // the import path of the package the symbol belongs to; "" for the one-argument form
}

// What describes the link for messages.
func (l Link) What() string {
	if l.Symbol == "" {
		return "//go:linkname"
	}
	return "//go:linkname to " + l.Symbol
}

// Linknames returns the //go:linkname directives of the files (see
// Files): the two-argument form, which pulls a symbol of another package
// in under a local name or pushes a local one out under another's name,
// and the one-argument form, which marks a local symbol for others to
// pull. The compiler honours them only in files that import unsafe; the
// rules report them wherever they are written.
func Linknames(files []*ast.File) []Link {
	var out []Link
	for _, file := range files {
		for _, group := range file.Comments {
			for _, c := range group.List {
				rest, ok := strings.CutPrefix(c.Text, "//go:linkname ")
				if !ok {
					continue
				}
				link := Link{Pos: c.Pos()}
				fields := strings.Fields(rest)
				if len(fields) > 0 {
					link.Local = fields[0]
				}
				if len(fields) == 2 {
					link.Symbol, link.Pkg = fields[1], SymbolPackage(fields[1])
				}
				out = append(out, link)
			}
		}
	}
	return out
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
