package authority

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Parse reads a configuration in the format of authority.conf: one
// "verb arguments" line per entry, "#" starting a comment.
func Parse(text string) (*Config, error) {
	c := new(Config)
	for i, line := range strings.Split(text, "\n") {
		if hash := strings.IndexByte(line, '#'); hash >= 0 {
			line = line[:hash]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if err := c.add(fields[0], fields[1:]); err != nil {
			return nil, fmt.Errorf("authority.conf:%d: %w", i+1, err)
		}
	}
	if len(c.Trees) == 0 {
		return nil, fmt.Errorf("authority.conf: no authority line")
	}
	return c, nil
}

func (c *Config) add(verb string, args []string) error {
	want := map[string]int{"authority": 3, "binding": 1, "clib": 1}
	n, ok := want[verb]
	if !ok {
		return fmt.Errorf("unknown verb %q (want authority, binding or clib)", verb)
	}
	if len(args) != n {
		return fmt.Errorf("%s takes %d arguments, got %d", verb, n, len(args))
	}
	switch verb {
	case "authority":
		t := Tree{Module: args[0], Dir: args[1], Path: args[2]}
		if t.Path == "." {
			t.Path = ""
		}
		for _, p := range []string{t.Dir, t.Path} {
			if p != "" && (path.IsAbs(p) || path.Clean(p) != p || strings.HasPrefix(p, "..")) {
				return fmt.Errorf("authority %s: %q is not a clean relative slash-separated path", t.Module, p)
			}
		}
		c.Trees = append(c.Trees, t)
	case "binding":
		c.Bindings = append(c.Bindings, args[0])
	case "clib":
		c.CLibs = append(c.CLibs, args[0])
		c.clibs = append(c.clibs, regexp.MustCompile(`(?i)(^|[^\pL\pN]|-l|lib)`+regexp.QuoteMeta(args[0])))
	}
	return nil
}

func mustParse(text string) *Config {
	c, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return c
}
