package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/mod/modfile"
)

// A workspace is the set of modules the go command works on: those of the
// go.work file in effect, or the main module alone.
type workspace struct {
	root    string            // the directory of go.work, or of the main module's go.mod
	work    bool              // a go.work workspace is in effect
	modules []module          // its modules
	env     map[string]string // the go command's environment at the root (go env)
}

// A module is a module of the workspace.
type module struct {
	path string // the module path
	dir  string // its absolute directory
}

// findWorkspace returns the workspace in effect at dir, asking the go
// command, so that GOWORK is honoured exactly as go vet honours it. Outside
// any module it returns an empty workspace rooted at dir.
func findWorkspace(dir string) (*workspace, error) {
	out, err := goCmd(dir, "env", "-json")
	if err != nil {
		return nil, err
	}
	ws := &workspace{root: dir}
	if err := json.Unmarshal([]byte(out), &ws.env); err != nil {
		return nil, fmt.Errorf("go env -json: %w", err)
	}
	gowork, gomod := ws.env["GOWORK"], ws.env["GOMOD"]
	switch {
	case gowork != "" && gowork != "off":
		ws.root, ws.work = filepath.Dir(gowork), true
		data, err := os.ReadFile(gowork)
		if err != nil {
			return nil, err
		}
		wf, err := modfile.ParseWork(gowork, data, nil)
		if err != nil {
			return nil, err
		}
		for _, use := range wf.Use {
			d := filepath.FromSlash(use.Path)
			if !filepath.IsAbs(d) {
				d = filepath.Join(ws.root, d)
			}
			if err := ws.add(d); err != nil {
				return nil, err
			}
		}
	case gomod != "" && gomod != os.DevNull:
		ws.root = filepath.Dir(gomod)
		if err := ws.add(ws.root); err != nil {
			return nil, err
		}
	}
	return ws, nil
}

// add adds the module in directory d.
func (ws *workspace) add(d string) error {
	data, err := os.ReadFile(filepath.Join(d, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(data)
	if path == "" {
		return fmt.Errorf("%s: no module line", filepath.Join(d, "go.mod"))
	}
	ws.modules = append(ws.modules, module{path: path, dir: filepath.Clean(d)})
	return nil
}

// moduleOf returns the module whose package tree holds the import path p:
// the one with the longest module path at or above p.
func (ws *workspace) moduleOf(p string) (module, bool) {
	var best module
	for _, m := range ws.modules {
		if (p == m.path || strings.HasPrefix(p, m.path+"/")) && len(m.path) > len(best.path) {
			best = m
		}
	}
	return best, best.path != ""
}

// importPath returns the import path of the package in directory dir, or
// false if no module of the workspace holds it.
func (ws *workspace) importPath(dir string) (string, bool) {
	var best module
	for _, m := range ws.modules {
		if within(dir, m.dir) && len(m.dir) > len(best.dir) {
			best = m
		}
	}
	if best.path == "" {
		return "", false
	}
	rel, err := filepath.Rel(best.dir, dir)
	if err != nil {
		return "", false
	}
	if rel == "." {
		return best.path, true
	}
	return best.path + "/" + filepath.ToSlash(rel), true
}

// expandPatterns rewrites the directory patterns "d/..." that go vet
// resolves in one module only, or not at all, in a go.work workspace: it
// adds "./m/..." for each workspace module m below d other than the one
// that holds d (go vet matches d/... in that one module only), and drops
// d/... itself if no module holds d (at the go.work root, "directory
// prefix . does not contain modules listed in go.work"). Every other
// pattern, and every pattern outside a workspace, is kept as written, so
// that telhavet resolves packages as go vet does.
func (ws *workspace) expandPatterns(dir string, patterns []string) ([]string, error) {
	var out []string
	for _, p := range patterns {
		prefix, ok := strings.CutSuffix(p, "/...")
		if !ok || !isDirPattern(prefix) || !ws.work {
			out = append(out, p)
			continue
		}
		root := filepath.Join(dir, filepath.FromSlash(prefix))
		before := len(out)
		holder, held := "", false
		for _, m := range ws.modules {
			if within(root, m.dir) && len(m.dir) >= len(holder) {
				holder, held = m.dir, true
			}
		}
		if held {
			out = append(out, p)
		}
		for _, m := range ws.modules {
			if m.dir == holder || !within(m.dir, root) {
				continue
			}
			rel, err := filepath.Rel(dir, m.dir)
			if err != nil {
				return nil, fmt.Errorf("expanding %s: %w", p, err)
			}
			rel = filepath.ToSlash(rel)
			if !strings.HasPrefix(rel, "../") {
				rel = "./" + rel // a relative pattern, not an import path
			}
			out = append(out, rel+"/...")
		}
		if len(out) == before {
			out = append(out, p) // no module at all: let go vet say so
		}
	}
	return out, nil
}

// asked reports whether the findings of diagnostic d are asked for: its
// package matches a pattern, or ./... would skip it (it lies under a
// testdata, "_" or "." directory) and analyzed code imports it. The other
// packages of the workspace that go vet analyzes, for the packages that
// import them, are not reported, as go vet does not report them.
//
// The package is the one whose directory holds the finding's file, so
// that an external test package counts as the package it tests: go vet
// names it "p_test [p.test]" or, in its -json output, plain "p_test",
// which no pattern "p/..." matches when p is the root of a module.
func (ws *workspace) asked(dir string, patterns []string, d diagnostic) bool {
	path, _, _ := strings.Cut(d.Package, " [")
	if base, ok := strings.CutSuffix(path, "_test"); ok {
		if home, ok := ws.importPath(filepath.Dir(d.file)); ok && home == base {
			path = base
		}
	}
	for _, elem := range strings.Split(path, "/") {
		if skippedElem(elem) {
			return true
		}
	}
	for _, p := range patterns {
		prefix, all := strings.CutSuffix(p, "/...")
		if isDirPattern(prefix) {
			ip, ok := ws.importPath(filepath.Join(dir, filepath.FromSlash(prefix)))
			if !ok {
				continue
			}
			prefix = ip
		}
		if path == prefix || all && matchWildcard(prefix+"/...", path) || matchWildcard(p, path) {
			return true
		}
	}
	return false
}

// matchWildcard reports whether the import path matches pattern, in which
// "..." stands for any string, as in go list patterns.
func matchWildcard(pattern, path string) bool {
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\.\.\.`, `.*`) + "$"
	ok, _ := regexp.MatchString(re, path)
	return ok
}

// isDirPattern reports whether the part of a pattern before "/..." names a
// directory rather than an import path, by go list's rules.
func isDirPattern(prefix string) bool {
	return prefix == "." || prefix == ".." ||
		strings.HasPrefix(prefix, "./") || strings.HasPrefix(prefix, "../") ||
		filepath.IsAbs(prefix)
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// goCmd runs the go command in dir and returns its standard output.
func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return string(out), nil
}
