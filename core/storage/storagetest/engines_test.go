package storagetest

import (
	"bufio"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEveryBinaryHasEveryEngine keeps the engine matrix whole: an engine
// kind of another module joins a test binary's matrix only through a
// blank import of the package that registers it (Register), so a test
// binary of the workspace whose tests use the matrix (EachEngine,
// EachDurableEngine, Engines) must import every such package. The one
// exception is a module the registering package's module requires, which
// cannot import it back (the etcd module requires telha.dev/core, so
// core's own tests run on memory and RocksDB only).
func TestEveryBinaryHasEveryEngine(t *testing.T) {
	root := workspaceRoot(t)
	var registrars []goPackage // the packages that call Register
	var matrix []goPackage     // the test binaries that use the matrix
	for _, dir := range workspaceModules(t, root) {
		for _, p := range modulePackages(t, root, dir) {
			if p.calls(false, "Register") && p.importPath != importPath {
				registrars = append(registrars, p)
			}
			if p.calls(true, "EachEngine", "EachDurableEngine", "Engines") {
				matrix = append(matrix, p)
			}
		}
	}
	if len(registrars) == 0 || len(matrix) == 0 {
		t.Fatalf("found %d registering packages and %d test binaries on the matrix in %s; the scan is broken", len(registrars), len(matrix), root)
	}
	for _, r := range registrars {
		for _, p := range matrix {
			if p.importPath == r.importPath || slices.Contains(r.module.requires, p.module.path) {
				continue
			}
			if !p.testImports[r.importPath] {
				t.Errorf("%s: the tests use the engine matrix without the engine kind of %s; add\n\t_ %q\nbeside storagetest in the imports of the package's TestMain", p.dir, r.importPath, r.importPath)
			}
		}
	}
}

// importPath is this package's import path.
const importPath = "telha.dev/core/storage/storagetest"

// goModule is what the test reads of a go.mod file.
type goModule struct {
	path     string
	requires []string // module paths
}

// goPackage is what the test reads of one directory of Go files.
type goPackage struct {
	dir        string // relative to the workspace root
	importPath string
	module     *goModule
	// calls, per test (true) and non-test (false) files, the names of this
	// package's functions the files call.
	called      map[bool]map[string]bool
	testImports map[string]bool // the import paths of the test files
}

// calls reports whether the package's test (or non-test) files call one of
// the named functions of this package.
func (p goPackage) calls(test bool, names ...string) bool {
	for _, n := range names {
		if p.called[test][n] {
			return true
		}
	}
	return false
}

// workspaceRoot returns the directory of go.work above this package.
func workspaceRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.work above the package directory")
		}
		dir = parent
	}
}

// workspaceModules returns the directories of go.work's use block,
// relative to root.
func workspaceModules(t *testing.T, root string) []string {
	var dirs []string
	inUse := false
	for _, line := range readLines(t, filepath.Join(root, "go.work")) {
		switch {
		case line == "use (":
			inUse = true
		case inUse && line == ")":
			inUse = false
		case inUse && line != "":
			dirs = append(dirs, filepath.Clean(line))
		case strings.HasPrefix(line, "use "):
			dirs = append(dirs, filepath.Clean(strings.TrimPrefix(line, "use ")))
		}
	}
	if len(dirs) == 0 {
		t.Fatal("go.work uses no module")
	}
	return dirs
}

// readGoModule reads the module path and the required module paths of
// dir/go.mod.
func readGoModule(t *testing.T, dir string) *goModule {
	m := &goModule{}
	inRequire := false
	for _, line := range readLines(t, filepath.Join(dir, "go.mod")) {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "module":
			m.path = f[1]
		case line == "require (":
			inRequire = true
		case inRequire && line == ")":
			inRequire = false
		case inRequire && len(f) >= 2:
			m.requires = append(m.requires, f[0])
		case len(f) >= 3 && f[0] == "require":
			m.requires = append(m.requires, f[1])
		}
	}
	if m.path == "" {
		t.Fatalf("%s/go.mod names no module", dir)
	}
	return m
}

// readLines returns the lines of a file, trimmed, without comments.
func readLines(t *testing.T, name string) []string {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "//")
		lines = append(lines, strings.TrimSpace(line))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return lines
}

// modulePackages reads every package directory of the module in dir, but
// for testdata and the directories of nested modules.
func modulePackages(t *testing.T, root, dir string) []goPackage {
	mod := readGoModule(t, filepath.Join(root, dir))
	var pkgs []goPackage
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(filepath.Join(root, dir), path)
		if err != nil {
			return err
		}
		if rel != "." {
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		p, err := readPackage(path, mod, rel)
		if err != nil {
			return err
		}
		p.dir = filepath.Join(dir, rel)
		pkgs = append(pkgs, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// readPackage parses the Go files of one directory for their imports and
// their calls of this package's functions.
func readPackage(dir string, mod *goModule, rel string) (goPackage, error) {
	p := goPackage{
		dir:         dir,
		importPath:  mod.path,
		module:      mod,
		called:      map[bool]map[string]bool{false: {}, true: {}},
		testImports: map[string]bool{},
	}
	if rel != "." {
		p.importPath += "/" + filepath.ToSlash(rel)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return p, err
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return p, errors.Join(errors.New("parse "+name), err)
		}
		test := strings.HasSuffix(name, "_test.go")
		local := "" // this package's name in f; "" when f does not import it
		if p.importPath == importPath {
			local = "."
		}
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return p, err
			}
			if test {
				p.testImports[path] = true
			}
			if path == importPath {
				local = "storagetest"
				if imp.Name != nil {
					local = imp.Name.Name
				}
			}
		}
		if local == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			switch fun := call.Fun.(type) {
			case *ast.SelectorExpr:
				if x, ok := fun.X.(*ast.Ident); ok && x.Name == local {
					p.called[test][fun.Sel.Name] = true
				}
			case *ast.Ident:
				if local == "." {
					p.called[test][fun.Name] = true
				}
			}
			return true
		})
	}
	return p, nil
}
