package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// expandWorkspacePatterns rewrites the directory patterns that go list
// cannot resolve in a go.work workspace: a pattern "d/..." whose directory d
// lies outside every workspace module, such as "./..." at the go.work root
// ("directory prefix . does not contain modules listed in go.work"), becomes
// one "./m/..." pattern per workspace module m under d. Every other pattern,
// including any pattern used inside a module or outside a workspace, is kept
// as written, so that telhavet resolves packages exactly as go vet does.
func expandWorkspacePatterns(dir string, patterns []string) ([]string, error) {
	var modules []string // absolute directories of the workspace modules
	var out []string
	for _, p := range patterns {
		prefix, ok := strings.CutSuffix(p, "/...")
		if !ok || !isDirPattern(prefix) {
			out = append(out, p)
			continue
		}
		if modules == nil {
			var err error
			if modules, err = workspaceModules(dir); err != nil {
				return nil, err
			}
		}
		root := filepath.Join(dir, filepath.FromSlash(prefix))
		var expanded []string
		for _, m := range modules {
			if within(root, m) {
				expanded = nil // the pattern lies inside module m: go list resolves it
				break
			}
			if within(m, root) {
				rel, err := filepath.Rel(dir, m)
				if err != nil {
					return nil, fmt.Errorf("expanding %s: %w", p, err)
				}
				rel = filepath.ToSlash(rel)
				if !strings.HasPrefix(rel, "../") {
					rel = "./" + rel // a relative pattern, not an import path
				}
				expanded = append(expanded, rel+"/...")
			}
		}
		if len(expanded) == 0 {
			out = append(out, p)
			continue
		}
		out = append(out, expanded...)
	}
	return out, nil
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

// workspaceModules returns the absolute directories of the modules that the
// go.work file in effect at dir uses, or an empty, non-nil list when no
// workspace is in effect (GOWORK=off, or no go.work above dir). It asks the
// go command, so that the GOWORK variable is honoured exactly as go vet
// honours it.
func workspaceModules(dir string) ([]string, error) {
	gowork, err := goCmd(dir, "env", "GOWORK")
	if err != nil {
		return nil, err
	}
	gowork = strings.TrimSpace(gowork)
	if gowork == "" || gowork == "off" {
		return []string{}, nil
	}
	js, err := goCmd(dir, "work", "edit", "-json", gowork)
	if err != nil {
		return nil, err
	}
	var work struct {
		Use []struct{ DiskPath string }
	}
	if err := json.Unmarshal([]byte(js), &work); err != nil {
		return nil, fmt.Errorf("decoding go work edit -json %s: %w", gowork, err)
	}
	modules := []string{}
	for _, u := range work.Use {
		d := filepath.FromSlash(u.DiskPath)
		if !filepath.IsAbs(d) {
			d = filepath.Join(filepath.Dir(gowork), d)
		}
		modules = append(modules, d)
	}
	return modules, nil
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
