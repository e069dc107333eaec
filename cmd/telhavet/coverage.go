package main

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// sourceFiles returns the .go files that the patterns cover in the
// modules of the workspace: every .go file the go command could build,
// in every directory below a "d/..." pattern and in the directory of a
// plain directory pattern, other than in testdata, vendor and "_" and "."
// directories, which ./... skips (those that analyzed code imports are
// analyzed through the imports), and other than in nested modules, which
// are modules of their own. Import path patterns add nothing: the gate
// checks coverage for directory patterns, such as ./... at the root.
func (ws *workspace) sourceFiles(dir string, patterns []string) ([]string, error) {
	var files []string
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
				if !recursive || name == "testdata" || name == "vendor" || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(name, ".go") && !strings.HasPrefix(name, "_") && !strings.HasPrefix(name, ".") {
				if _, ok := ws.importPath(filepath.Dir(path)); ok {
					files = append(files, path)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(files)
	return slices.Compact(files), nil
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
