package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"telha.dev/analyzers/authority"
)

// sourceFiles returns the .go files that the patterns cover in the
// modules of the workspace: every .go file the go command could build, in
// every directory below a "d/..." pattern and in the directory of a plain
// directory pattern, other than in the vendor directory at a module's
// root (others' code), .git and nested modules, which are modules of their
// own. The testdata, "_", "." and other vendor directories that ./...
// skips are covered too, since go run and go test build their packages
// when named (go run ./.tools/dump, go run ./internal/vendor/dump):
// their files are in the list if the go command can build their package
// (see buildable), unless they lie in a directory of deliberate violations
// that authority.conf names (fixtures). Import path patterns add nothing: the gate checks coverage
// for directory patterns, such as ./... at the root.
func (ws *workspace) sourceFiles(dir string, patterns []string) ([]string, error) {
	var files, hidden []string
	for _, p := range patterns {
		prefix, recursive := strings.CutSuffix(p, "/...")
		if !isDirPattern(prefix) {
			continue
		}
		root := filepath.Join(dir, filepath.FromSlash(prefix))
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				if path == root {
					return nil
				}
				if !recursive || name == ".git" || ws.isFixture(path) || name == "vendor" && isModuleRoot(filepath.Dir(path)) {
					return filepath.SkipDir
				}
				if isModuleRoot(path) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
				return nil
			}
			if _, ok := ws.importPath(filepath.Dir(path)); !ok {
				return nil
			}
			if rel, err := filepath.Rel(root, path); err == nil && hiddenDir(filepath.ToSlash(filepath.Dir(rel))) {
				hidden = append(hidden, path)
			} else {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	built, err := ws.buildable(dir, hidden)
	if err != nil {
		return nil, err
	}
	files = append(files, built...)
	slices.Sort(files)
	return slices.Compact(files), nil
}

// isModuleRoot reports whether dir holds a go.mod.
func isModuleRoot(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// hiddenDir reports whether a slash-separated relative directory lies in
// a directory that ./... skips: testdata, vendor, or one whose name starts
// with "_" or ".".
func hiddenDir(rel string) bool {
	for elem := range strings.SplitSeq(rel, "/") {
		if skippedElem(elem) && elem != "." {
			return true
		}
	}
	return false
}

// skippedElem reports whether ./... skips a directory of this name.
func skippedElem(name string) bool {
	return name == "testdata" || name == "vendor" || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")
}

// isFixture reports whether dir is a directory of deliberate violations of
// authority.conf, relative to the workspace root.
func (ws *workspace) isFixture(dir string) bool {
	rel, err := filepath.Rel(ws.root, dir)
	return err == nil && !strings.HasPrefix(rel, "..") && authority.Default.IsFixture(filepath.ToSlash(rel))
}

// buildable returns the files among files whose package the go command
// can build in the default configuration: a directory of Go files under
// testdata that does not build (inputs of a parser's tests, analysistest
// packages in GOPATH layout) cannot run, and holds nothing to analyze.
func (ws *workspace) buildable(dir string, files []string) ([]string, error) {
	if len(files) == 0 {
		return nil, nil
	}
	var dirs []string
	for _, f := range files {
		dirs = append(dirs, filepath.Dir(f))
	}
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	args := []string{"list", "-e", "-json=Dir,Error,DepsErrors,Incomplete"}
	for _, d := range dirs {
		rel, err := filepath.Rel(dir, d)
		if err != nil {
			return nil, err
		}
		args = append(args, "./"+filepath.ToSlash(rel))
	}
	out, err := goCmd(dir, args...)
	if err != nil {
		return nil, err
	}
	ok := make(map[string]bool)
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var p struct {
			Dir        string
			Error      *struct{ Err string }
			DepsErrors []struct{ Err string }
			Incomplete bool
		}
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		ok[p.Dir] = p.Error == nil && len(p.DepsErrors) == 0 && !p.Incomplete
	}
	var built []string
	for _, f := range files {
		if ok[filepath.Dir(f)] {
			built = append(built, f)
		}
	}
	return built, nil
}

// unseen returns the files that no analyzed package holds.
func (res *results) unseen(files []string) []string {
	seen := make(map[string]bool)
	for _, rec := range res.records {
		for _, f := range rec.Files {
			seen[f] = true
		}
	}
	var out []string
	for _, f := range files {
		if !seen[f] {
			out = append(out, f)
		}
	}
	return out
}

// nextPackages returns the packages to analyze in the next pass over
// build b: the workspace packages that analyzed code imports but that were
// not analyzed (under testdata or "_" directories, which ./... skips), and
// the packages of the files no pass has analyzed yet that b builds (those
// of packages analyzed earlier only for their importers' sake, whose
// results go vet's cache loses, and those that b's build constraints
// admit), leaving out those already tried in b.
func (ws *workspace) nextPackages(dir string, b build, res *results, files []string, tried map[string]bool) ([]string, error) {
	var next []string
	for _, rec := range res.records {
		for _, imp := range rec.Imports {
			if _, ok := res.records[imp]; ok || tried[imp] {
				continue
			}
			if _, ok := ws.moduleOf(imp); ok {
				next = append(next, imp)
			}
		}
	}
	unseen := res.unseen(files)
	var candidates []string
	for _, f := range unseen {
		if p, ok := ws.importPath(filepath.Dir(f)); ok && !tried[p] {
			candidates = append(candidates, p)
		}
	}
	slices.Sort(candidates)
	built, err := b.builds(dir, slices.Compact(candidates), unseen)
	if err != nil {
		return nil, err
	}
	next = append(next, built...)
	slices.Sort(next)
	return slices.Compact(next), nil
}

// buildLine returns the //go:build line of a Go file, or "".
func buildLine(name string) string {
	f, err := os.Open(name)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "//go:build ") {
			return line
		}
		if strings.HasPrefix(line, "package ") {
			break
		}
	}
	return ""
}
