package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// writeWorkspace lays out a go.work that uses modules a and b/c, next to a
// module d that the workspace leaves out, and returns its root.
func writeWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.work":       "go 1.26.0\n\nuse (\n\t./a\n\t./b/c\n)\n",
		"a/go.mod":      "module example.com/a\n\ngo 1.26.0\n",
		"a/a.go":        "package a\n",
		"a/sub/sub.go":  "package sub\n",
		"b/c/go.mod":    "module example.com/c\n\ngo 1.26.0\n",
		"b/c/c.go":      "package c\n",
		"d/go.mod":      "module example.com/d\n\ngo 1.26.0\n",
		"d/d.go":        "package d\n",
		"b/notes/x.txt": "not a package\n",
	}
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestExpandWorkspacePatterns(t *testing.T) {
	root := writeWorkspace(t)
	t.Setenv("GOWORK", "") // find root/go.work from the directory, as go does

	tests := []struct {
		dir      string
		patterns []string
		want     []string
	}{
		{".", []string{"./..."}, []string{"./a/...", "./b/c/..."}},
		{"b", []string{"./..."}, []string{"./c/..."}},
		{"b", []string{"../..."}, []string{"../a/...", "./c/..."}},
		{"a", []string{"./..."}, []string{"./..."}},             // inside a module: as go vet
		{".", []string{"./a/..."}, []string{"./a/..."}},         // names a module already
		{".", []string{"./a/sub/..."}, []string{"./a/sub/..."}}, // inside a module
		{".", []string{"example.com/...", "."}, []string{"example.com/...", "."}},
		{".", []string{"./d/..."}, []string{"./d/..."}}, // no workspace module there: go reports it
	}
	for _, tt := range tests {
		got, err := expandWorkspacePatterns(filepath.Join(root, tt.dir), tt.patterns)
		if err != nil {
			t.Fatalf("expandWorkspacePatterns(%s, %q): %v", tt.dir, tt.patterns, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("expandWorkspacePatterns(%s, %q) = %q, want %q", tt.dir, tt.patterns, got, tt.want)
		}
	}

	t.Run("GOWORK=off", func(t *testing.T) {
		t.Setenv("GOWORK", "off")
		got, err := expandWorkspacePatterns(root, []string{"./..."})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"./..."}; !slices.Equal(got, want) {
			t.Errorf("with GOWORK=off: %q, want %q", got, want)
		}
	})
}

// TestWorkspaceRootLoadsEveryModule runs the direct mode's loading at the
// go.work root, where go vet ./... fails: every package of every workspace
// module must be found, and none of the module left out.
func TestWorkspaceRootLoadsEveryModule(t *testing.T) {
	root := writeWorkspace(t)
	t.Setenv("GOWORK", "")
	t.Chdir(root)

	patterns, err := expandWorkspacePatterns(root, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := loadPackages(patterns, true, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
		got = append(got, p.PkgPath)
	}
	slices.Sort(got)
	if want := []string{"example.com/a", "example.com/a/sub", "example.com/c"}; !slices.Equal(got, want) {
		t.Errorf("packages at the workspace root = %q, want %q", got, want)
	}
}
