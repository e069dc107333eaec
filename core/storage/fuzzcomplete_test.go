package storage

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryFamilyDecodedAndFuzzed keeps the decoders and their fuzz
// targets whole: every family has its decoder in the tests' decoders
// (errors_test.go), and every decoder there has a fuzz target
// FuzzDecodeX in fuzz_test.go and a committed seed corpus in
// testdata/fuzz/FuzzDecodeX.
func TestEveryFamilyDecodedAndFuzzed(t *testing.T) {
	decoded := map[ColumnFamily]bool{}
	for _, d := range decoders {
		decoded[d.family] = true
	}
	for _, cf := range Families() {
		if !decoded[cf] {
			t.Errorf("family %s: no decoder in the tests' decoders (errors_test.go)", cf)
		}
	}
	targets := fuzzTargets(t, "fuzz_test.go")
	for _, d := range decoders {
		target := "Fuzz" + d.name
		if !targets[target] {
			t.Errorf("%s: no fuzz target %s in fuzz_test.go", d.name, target)
		}
		seeds, err := os.ReadDir(filepath.Join("testdata", "fuzz", target))
		if err != nil || len(seeds) == 0 {
			t.Errorf("%s: no seed corpus in testdata/fuzz/%s (run the target with -fuzz and commit what it wrote): %v", d.name, target, err)
		}
	}
}

// fuzzTargets returns the names of the Fuzz functions of a test file.
func fuzzTargets(t *testing.T, name string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Fuzz") {
			out[fd.Name.Name] = true
		}
	}
	return out
}
