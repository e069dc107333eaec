package capability

import (
	"go/ast"

	"telha.dev/analyzers/authority"
	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/rule"
)

// linknames reports every //go:linkname directive: it pulls in, or hands
// out, a symbol around the package system and the type checker.
func (c *checker) linknames(files []*ast.File) {
	for _, link := range native.Linknames(files) {
		c.report(authority.Linkname, rule.At(link.Pos), "%s", link.What())
	}
}
