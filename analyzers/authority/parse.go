package authority

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Parse reads a configuration in the format of authority.conf: one
// "verb arguments" line per entry, "#" starting a comment.
func Parse(text string) (*Config, error) {
	c := &Config{text: text}
	// Grants and serves lines are checked against the modules and the
	// authority, which any line may declare: they are read in a second
	// pass.
	type pending struct {
		line int
		args []string
	}
	var grants []pending
	for i, line := range strings.Split(text, "\n") {
		if hash := strings.IndexByte(line, '#'); hash >= 0 {
			line = line[:hash]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if fields[0] == "grant" || fields[0] == "serves" {
			grants = append(grants, pending{i + 1, fields})
			continue
		}
		if err := c.add(fields[0], fields[1:]); err != nil {
			return nil, fmt.Errorf("authority.conf:%d: %w", i+1, err)
		}
	}
	if len(c.Trees) == 0 {
		return nil, fmt.Errorf("authority.conf: no authority line")
	}
	for _, g := range grants {
		if err := c.add(g.args[0], g.args[1:]); err != nil {
			return nil, fmt.Errorf("authority.conf:%d: %w", g.line, err)
		}
	}
	return c, nil
}

// verbs are the verbs of authority.conf and how many arguments each
// takes; a negative count is a least count, for a verb whose last argument
// is free text.
var verbs = map[string]int{
	"authority": 3,
	"module":    2,
	"binding":   1,
	"clib":      1,
	"grant":     -3,
	"serves":    -1,
	"fixtures":  -1,
}

func (c *Config) add(verb string, args []string) error {
	n, ok := verbs[verb]
	if !ok {
		return fmt.Errorf("unknown verb %q (want authority, module, binding, clib, grant, serves or fixtures)", verb)
	}
	if n >= 0 && len(args) != n {
		return fmt.Errorf("%s takes %d arguments, got %d", verb, n, len(args))
	}
	if verb == "grant" && len(args) == 2 {
		return fmt.Errorf("grant %s %s: give the reason for the grant on its line", args[0], args[1])
	}
	if n < 0 && len(args) < -n {
		return fmt.Errorf("%s takes at least %d arguments, got %d", verb, -n, len(args))
	}
	switch verb {
	case "authority":
		t := Tree{Module: args[0], Dir: args[1], Path: args[2]}
		if t.Path == "." {
			t.Path = ""
		}
		for _, p := range []string{t.Dir, t.Path} {
			if err := checkRelative(p); err != nil {
				return fmt.Errorf("authority %s: %w", t.Module, err)
			}
		}
		c.Trees = append(c.Trees, t)
		return c.addModule(Module{Path: t.Module, Dir: t.Dir})
	case "module":
		if err := checkRelative(args[1]); err != nil {
			return fmt.Errorf("module %s: %w", args[0], err)
		}
		return c.addModule(Module{Path: args[0], Dir: args[1]})
	case "binding":
		c.Bindings = append(c.Bindings, args[0])
	case "clib":
		c.CLibs = append(c.CLibs, args[0])
		c.clibs = append(c.clibs, regexp.MustCompile(`(?i)(^|[^\pL\pN]|-l|lib)`+regexp.QuoteMeta(args[0])))
	case "grant":
		return c.addGrant(Grant{Package: args[0], Capability: args[1], Reason: strings.Join(args[2:], " ")})
	case "serves":
		for _, tree := range args {
			if _, ok := c.ModuleOf(tree); !ok {
				return fmt.Errorf("serves %s: no module line holds the package tree", tree)
			}
			c.Serves = append(c.Serves, tree)
		}
	case "fixtures":
		for _, dir := range args {
			if err := checkRelative(dir); err != nil {
				return fmt.Errorf("fixtures: %w", err)
			}
			if _, err := path.Match(dir, ""); err != nil {
				return fmt.Errorf("fixtures: %q: %w", dir, err)
			}
			c.Fixtures = append(c.Fixtures, dir)
		}
	}
	return nil
}

// addModule adds a module of the repository, refusing a second line for
// one path or one directory.
func (c *Config) addModule(m Module) error {
	for _, old := range c.Modules {
		switch {
		case old == m:
			return nil // an authority line and a module line may agree
		case old.Path == m.Path:
			return fmt.Errorf("module %s is in %s and in %s", m.Path, old.Dir, m.Dir)
		case old.Dir == m.Dir:
			return fmt.Errorf("directory %s holds modules %s and %s", m.Dir, old.Path, m.Path)
		}
	}
	c.Modules = append(c.Modules, m)
	return nil
}

// addGrant adds a grant once its capability and package are checked: a
// package of a module of the repository, outside the authority, that does
// not have this grant yet, and a reason of more than one word, so that a
// grant is reviewed like code.
func (c *Config) addGrant(g Grant) error {
	if !slices.Contains(Capabilities, g.Capability) {
		return fmt.Errorf("grant %s: unknown capability %q (want one of %s)", g.Package, g.Capability, strings.Join(Capabilities, ", "))
	}
	if _, ok := c.ModuleOf(g.Package); !ok {
		return fmt.Errorf("grant %s %s: no module line holds the package", g.Package, g.Capability)
	}
	if c.InTree(g.Package) {
		return fmt.Errorf("grant %s %s: the package is in the authority, which needs no grant", g.Package, g.Capability)
	}
	if len(strings.Fields(g.Reason)) < 2 {
		return fmt.Errorf("grant %s %s: give the reason for the grant on its line", g.Package, g.Capability)
	}
	for _, old := range c.Grants {
		if old.Package == g.Package && old.Capability == g.Capability {
			return fmt.Errorf("grant %s %s is given twice", g.Package, g.Capability)
		}
	}
	c.Grants = append(c.Grants, g)
	return nil
}

// checkRelative reports an error unless p is a clean relative
// slash-separated path inside the repository.
func checkRelative(p string) error {
	if p != "" && (path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../")) {
		return fmt.Errorf("%q is not a clean relative slash-separated path", p)
	}
	return nil
}
