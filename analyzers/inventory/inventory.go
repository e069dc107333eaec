// Package inventory defines the analyzer through which the telhavet driver
// learns what go vet analyzed: the files of each package, those that build
// constraints left out, and its imports. With -telhainventory.report set
// (the driver sets it), it reports one diagnostic per package whose
// message is the package's Record in JSON, which the driver takes out of
// the findings. Traveling as a diagnostic, the record is cached by go vet
// with the package's other results, so a warm run costs nothing more.
package inventory

import (
	"encoding/json"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"telha.dev/analyzers/internal/native"
)

// Name is the analyzer's name, as go vet flags and JSON output spell it.
const Name = "telhainventory"

// Analyzer reports the inventory of each package when -telhainventory.report is set.
var Analyzer = &analysis.Analyzer{
	Name: Name,
	Doc:  "report each package's files and imports, for the telhavet driver (with -telhainventory.report)",
	Run:  run,
}

var report bool

func init() {
	Analyzer.Flags.BoolVar(&report, "report", false, "report the inventory (the telhavet driver sets it)")
	// The driver sets -pass on its passes after the first over a build,
	// only so that go vet caches their results apart: go vet does not tell
	// a package analyzed in full from one analyzed only for facts.
	Analyzer.Flags.Int("pass", 0, "the telhavet driver's pass over a build (only keeps go vet's cached results apart)")
}

// A Record is what the driver learns of one analyzed package.
type Record struct {
	Pkg     string   `json:"pkg"`     // the import path
	Module  string   `json:"module"`  // the module path
	Files   []string `json:"files"`   // the .go files analyzed, as written (not as cgo rewrote them)
	Ignored []string `json:"ignored"` // the .go files that build constraints left out
	Imports []string `json:"imports"` // the import paths of the packages it imports
}

func run(pass *analysis.Pass) (any, error) {
	if !report || len(pass.Files) == 0 {
		return nil, nil
	}
	r := Record{Pkg: pass.Pkg.Path()}
	if pass.Module != nil {
		r.Module = pass.Module.Path
	}
	for _, name := range native.SourceGoFiles(pass) {
		if strings.HasSuffix(name, ".go") {
			r.Files = append(r.Files, name)
		}
	}
	for _, name := range pass.IgnoredFiles {
		if strings.HasSuffix(name, ".go") {
			r.Ignored = append(r.Ignored, name)
		}
	}
	for _, imp := range pass.Pkg.Imports() {
		r.Imports = append(r.Imports, imp.Path())
	}
	slices.Sort(r.Files)
	r.Files = slices.Compact(r.Files)
	msg, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	pass.Reportf(pass.Files[0].Package, "%s", msg)
	return nil, nil
}
