// Package authority holds what the Telha rules know about the key authority:
// the import paths of the authority tree, set by the -authority flag that
// every rule registers, and lists of import path roots in general.
package authority

import (
	"flag"
	"fmt"
	"strings"
)

// DefaultTree is the root of the authority tree: the key authority and
// every package below it.
const DefaultTree = "telha.dev/core/storage"

// Paths is a list of import path roots. A root covers itself and every
// package below it. As a flag value it is written comma-separated.
type Paths []string

// String returns the roots, comma-separated.
func (p *Paths) String() string {
	return strings.Join(*p, ",")
}

// Set replaces the roots with the comma-separated list s.
func (p *Paths) Set(s string) error {
	var roots Paths
	for root := range strings.SplitSeq(s, ",") {
		root = strings.TrimSpace(root)
		if root == "" {
			return fmt.Errorf("empty import path in %q", s)
		}
		roots = append(roots, root)
	}
	*p = roots
	return nil
}

// Contains reports whether the package with the given import path lies
// under one of the roots. An external test package ("p_test") lies where
// the package it tests lies.
func (p Paths) Contains(path string) bool {
	path = strings.TrimSuffix(path, "_test")
	for _, root := range p {
		if path == root || strings.HasPrefix(path, root) && path[len(root)] == '/' {
			return true
		}
	}
	return false
}

// TreeFlag registers the -authority flag on fs and returns the authority
// tree that the flag sets.
func TreeFlag(fs *flag.FlagSet) *Paths {
	tree := &Paths{DefaultTree}
	fs.Var(tree, "authority", "comma-separated import paths of the authority tree roots; nothing at or below them is checked")
	return tree
}
