// Package telhatest runs a Telha rule over its testdata with analysistest,
// in module mode.
//
// The testdata is text archives (txtar), not trees of files and symbolic
// links, which module zips and some checkouts drop: analyzers/testdata/
// stubs.txtar holds what every rule shares (the key authority with its
// marks and facades, the engine bindings, the go.mod files of the
// subsystem modules), and each rule's testdata/*.txtar holds its cases. Run
// extracts them all into one temporary directory, as x/tools'
// internal/testfiles does, makes it a go.work workspace of every module in
// it, and runs analysistest there.
package telhatest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/analysistest"
	"golang.org/x/tools/txtar"

	"telha.dev/analyzers/authority"
)

// Tree lists the packages of the stub authority. Their files, tests
// included, hold no expectations: nothing in the authority may be
// reported.
var Tree = []string{
	"telha.dev/core/storage/...",
	"telha.dev/core/storage/etcd/...",
}

// Run runs a over the stub authority and the packages matched by patterns
// in a workspace made of the stubs and the archives in the testdata
// directory of the calling test, and checks the expectations.
func Run(t *testing.T, a *analysis.Analyzer, patterns ...string) []*analysistest.Result {
	t.Helper()
	dir := Workspace(t, "testdata")
	return analysistest.Run(t, dir, a, slices.Concat(Tree, patterns)...)
}

// Configure makes authority.Default the configuration of authority.conf
// with more lines (grants, modules) until the end of the test. The tests
// that call it cannot run in parallel.
func Configure(t *testing.T, lines string) {
	t.Helper()
	c, err := authority.Default.With(lines)
	if err != nil {
		t.Fatal(err)
	}
	old := authority.Default
	authority.Default = c
	t.Cleanup(func() { authority.Default = old })
}

// Workspace extracts the shared stubs and every archive in testdata into a
// new temporary directory, writes a go.mod at its root and a go.work that
// uses every module in it, and returns the directory.
func Workspace(t *testing.T, testdata string) string {
	t.Helper()
	dir := t.TempDir()
	archives, err := filepath.Glob(filepath.Join(testdata, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	stubs, err := stubsArchive()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append([]string{stubs}, archives...) {
		if err := extract(name, dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeWorkspace(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// stubsArchive finds analyzers/testdata/stubs.txtar above the working
// directory of the test: at the root of the module.
func stubsArchive() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "stubs.txtar"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// extract writes the files of the archive name under dir. Two archives
// may not give one file different contents.
func extract(name, dir string) error {
	ar, err := txtar.ParseFile(name)
	if err != nil {
		return err
	}
	for _, f := range ar.Files {
		path := filepath.Join(dir, filepath.FromSlash(f.Name))
		if old, err := os.ReadFile(path); err == nil && string(old) != string(f.Data) {
			return fmt.Errorf("%s: %s is also in another archive, with other contents", name, f.Name)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeWorkspace makes dir a module (so that analysistest works in module
// mode) and a go.work workspace of every module below it.
func writeWorkspace(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module telha.dev/testdata\n\ngo 1.26.0\n"), 0o644); err != nil {
		return err
	}
	var uses []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "go.mod" {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if rel != "." {
			rel = "./" + filepath.ToSlash(rel)
		}
		uses = append(uses, "\t"+rel+"\n")
		return err
	})
	if err != nil {
		return err
	}
	slices.Sort(uses)
	work := "go 1.26.0\n\nuse (\n" + strings.Join(uses, "") + ")\n"
	return os.WriteFile(filepath.Join(dir, "go.work"), []byte(work), 0o644)
}
