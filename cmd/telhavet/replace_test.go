package main

import (
	"strings"
	"testing"

	"telha.dev/analyzers/authority"
)

// TestAuditReplaces: a replace that puts a directory in a module's place
// must name a module of the workspace, in go.work and in every workspace
// module's go.mod; a replace with a version is a dependency like any other.
func TestAuditReplaces(t *testing.T) {
	const work = "go 1.26.0\n\nuse (\n\t./a\n\t./b\n)\n"
	tests := []struct {
		name  string
		files map[string]string
		bad   string // what the error names; "" for none
	}{
		{"a workspace module", map[string]string{
			"a/go.mod": "module example.com/a\n\ngo 1.26.0\n\nreplace example.com/b => ../b\n",
		}, ""},
		{"a published version", map[string]string{
			"a/go.mod": "module example.com/a\n\ngo 1.26.0\n\nreplace example.com/x => example.com/y v1.2.3\n",
		}, ""},
		{"a module nested in a workspace module", map[string]string{
			"a/go.mod":                "module example.com/a\n\ngo 1.26.0\n\nreplace example.com/evil => ./internal/evil\n",
			"a/internal/evil/go.mod":  "module example.com/evil\n\ngo 1.26.0\n",
			"a/internal/evil/evil.go": "package evil\n",
		}, "example.com/evil => ./internal/evil"},
		{"a module beside the workspace", map[string]string{
			"b/go.mod": "module example.com/b\n\ngo 1.26.0\n\nreplace (\n\texample.com/a => ../a\n\texample.com/evil => ../../elsewhere\n)\n",
		}, "example.com/evil => ../../elsewhere"},
		{"the key authority where authority.conf places it", map[string]string{
			"a/go.mod":    "module example.com/a\n\ngo 1.26.0\n\nreplace telha.dev/core => ../core\n",
			"core/go.mod": "module telha.dev/core\n\ngo 1.26.0\n",
		}, ""},
		{"the key authority elsewhere", map[string]string{
			"a/go.mod":                 "module example.com/a\n\ngo 1.26.0\n\nreplace telha.dev/core => ./internal/mycore\n",
			"a/internal/mycore/go.mod": "module telha.dev/core\n\ngo 1.26.0\n",
		}, "telha.dev/core => ./internal/mycore"},
		{"in go.work", map[string]string{
			"go.work": work + "\nreplace example.com/evil => ./tools/evil\n",
		}, "example.com/evil => ./tools/evil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{
				"go.work":  work,
				"a/go.mod": "module example.com/a\n\ngo 1.26.0\n",
				"b/go.mod": "module example.com/b\n\ngo 1.26.0\n",
			}
			for name, content := range tt.files {
				files[name] = content
			}
			writeFiles(t, root, files)
			t.Setenv("GOWORK", "")
			ws, err := findWorkspace(root)
			if err != nil {
				t.Fatal(err)
			}
			err = ws.auditReplaces(authority.Default)
			switch {
			case tt.bad == "" && err != nil:
				t.Errorf("auditReplaces() = %v, want nil", err)
			case tt.bad != "" && (err == nil || !strings.Contains(err.Error(), tt.bad)):
				t.Errorf("auditReplaces() = %v, want an error naming %q", err, tt.bad)
			}
		})
	}
}
