package bytekey

import (
	"telha.dev/analyzers/internal/native"
	"telha.dev/analyzers/internal/rule"
)

// runNative reports the //go:linkname directives that reach into the
// authority, which bypass both its exported API and the type system, and
// in every package the functions without a body that take what carries a
// key unnamed (checkCarriers).
func runNative(p *rule.Pass) {
	for _, link := range native.Linknames(native.Files(p.Fset, p.Files)) {
		if p.Config.InTree(link.Pkg) {
			p.ReportRangef(rule.At(link.Pos), "%s reaches into the key authority from outside it; %s", link.What(), advice)
		}
	}
	checkCarriers(p)
}
