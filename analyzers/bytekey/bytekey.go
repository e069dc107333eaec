package bytekey

import (
	_ "embed"

	"telha.dev/analyzers/internal/flow"
	"telha.dev/analyzers/internal/marks"
	"telha.dev/analyzers/internal/refs"
	"telha.dev/analyzers/internal/rule"
)

//go:embed doc.go
var doc string

// Analyzer reports keys and scan ranges built from bytes, and reflect,
// unsafe and linkname on the key authority, outside it.
var Analyzer = rule.New("bytekey", doc, run, runNative, flow.Analyzer)

// advice is what to use instead of reaching into the authority.
const advice = "use the exported constructors and accessors of the key authority"

func run(p *rule.Pass) {
	rawBytes := p.Marks.Select(func(d marks.Directive) bool {
		return d.Verb == marks.Restricted && d.Kind == marks.RawBytes
	})
	if rawBytes != nil {
		refs.Check(p, rawBytes)
		refs.CheckInterfaces(p, rawBytes, rawBytes.Funcs())
	}
	opaque := p.Marks.Select(func(d marks.Directive) bool {
		return d.Verb == marks.Opaque
	})
	if opaque != nil {
		checkConstruction(p, opaque)
	}
	checkSinks(p, opaque, p.ResultOf[flow.Analyzer].(*flow.Result).Sinks)
	checkBodyless(p)
}
