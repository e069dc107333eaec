package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"telha.dev/analyzers/authority"
)

// audit checks that the modules of the key authority that the workspace
// uses lie in one repository as authority.conf lays it out: each in a
// directory that ends with its configured directory, all below the same
// root. The rules place a package by its module and by the directory its
// files are in; a module that takes the name of one of the authority's,
// elsewhere, fails here. (A module that takes the name of one that a
// facade or grant names, elsewhere, is simply not that module: the rules
// place it below the authority's repository root.)
func (ws *workspace) audit(c *authority.Config) error {
	root, rootOf := "", ""
	for _, t := range c.Trees {
		for _, m := range ws.modules {
			if m.path != t.Module {
				continue
			}
			want := string(filepath.Separator) + filepath.FromSlash(t.Dir)
			r, ok := strings.CutSuffix(m.dir, want)
			if !ok {
				return fmt.Errorf("module %s of the key authority is at %s, not in a directory %s as authority.conf places it", m.path, m.dir, t.Dir)
			}
			if root != "" && r != root {
				return fmt.Errorf("module %s of the key authority is at %s, not in the repository of %s (%s)", m.path, m.dir, rootOf, root)
			}
			root, rootOf = r, m.path
		}
	}
	return nil
}
