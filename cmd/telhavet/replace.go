package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"telha.dev/analyzers/authority"
)

// auditReplaces checks that every replace directive of the workspace that
// puts a directory in a module's place (in go.work or in the go.mod of a
// workspace module, since the go command applies both) names a module of
// the workspace. The code of any other directory so built into the
// workspace's packages is analyzed only for the facts its importers need,
// never for findings (go vet's VetxOnly), and no ./... pattern reaches it:
// a module beside the workspace, or nested in one of its modules, with a
// replace in a go.mod would carry anything past the gate. A replace with
// a version (a module from the proxy) is a dependency like any other. A
// module of the key authority may be replaced by its directory in the
// repository (a subsystem module outside the workspace, built against the
// authority beside it): the rules exempt its code anyway, and place it by
// its directory as they place the workspace's.
func (ws *workspace) auditReplaces(c *authority.Config) error {
	files := make([]string, 0, len(ws.modules)+1)
	if ws.work {
		files = append(files, ws.env["GOWORK"])
	}
	for _, m := range ws.modules {
		files = append(files, filepath.Join(m.dir, "go.mod"))
	}
	for _, file := range files {
		replaces, err := replacesOf(file)
		if err != nil {
			return err
		}
		for _, r := range replaces {
			if r.New.Version != "" {
				continue
			}
			dir := filepath.FromSlash(r.New.Path)
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(filepath.Dir(file), dir)
			}
			dir = filepath.Clean(dir)
			if !slices.ContainsFunc(ws.modules, func(m module) bool { return m.dir == dir }) && !ws.authorityAt(c, r.Old.Path, dir) {
				return fmt.Errorf("%s:%d: replace %s => %s: the directory is not a module of the workspace, so the gate would never analyze its code: add it to go.work, or require a published version", file, r.Syntax.Start.Line, r.Old.Path, r.New.Path)
			}
		}
	}
	return nil
}

// replacesOf returns the replace directives of a go.mod or go.work file.
func replacesOf(file string) ([]*modfile.Replace, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if filepath.Base(file) == "go.mod" {
		f, err := modfile.Parse(file, data, nil)
		if err != nil {
			return nil, err
		}
		return f.Replace, nil
	}
	f, err := modfile.ParseWork(file, data, nil)
	if err != nil {
		return nil, err
	}
	return f.Replace, nil
}

// authorityAt reports whether dir, the directory a replace puts in place of
// module path, is where authority.conf places that module of the key
// authority: a directory ending with its configured one, in the repository
// of the authority's modules in the workspace, if any.
func (ws *workspace) authorityAt(c *authority.Config, path, dir string) bool {
	for _, t := range c.Trees {
		if t.Module != path {
			continue
		}
		root, ok := strings.CutSuffix(dir, string(filepath.Separator)+filepath.FromSlash(t.Dir))
		if !ok {
			return false
		}
		for _, u := range c.Trees {
			for _, m := range ws.modules {
				if m.path == u.Module && m.dir != filepath.Join(root, filepath.FromSlash(u.Dir)) {
					return false
				}
			}
		}
		return true
	}
	return false
}
