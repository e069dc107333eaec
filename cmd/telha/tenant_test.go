package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// telha runs one invocation and returns its exit code and output.
func telha(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// mustTelha runs one invocation that must succeed.
func mustTelha(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := telha(t, args...)
	if code != exitOK {
		t.Fatalf("telha %s: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
	}
	return out
}

// The demo provisions its tenants; one of them moves to a new store by
// export and import, and to another scope of the same store, and its
// export from either place is the same file.
func TestTenantCommands(t *testing.T) {
	tmp := t.TempDir()
	src, dst := filepath.Join(tmp, "src"), filepath.Join(tmp, "dst")
	mustTelha(t, "demo", "-data", src)
	list := mustTelha(t, "tenant", "list", "-data", src)
	for _, name := range []string{"acme", "globex", "initech"} {
		if !strings.Contains(list, name+" ") || !strings.Contains(list, "active") {
			t.Fatalf("list lacks active %s:\n%s", name, list)
		}
	}
	mustTelha(t, "demo", "-data", src) // a second run finds its tenants provisioned

	first := filepath.Join(tmp, "acme.telha")
	out := mustTelha(t, "tenant", "export", "-data", src, "-scope", "acme", "-o", first)
	if !strings.Contains(out, "exported acme (") {
		t.Fatalf("export says %q", out)
	}
	acme := "0190a000-0000-7000-8000-0000000000a1:0190a000-0000-7000-8000-00000000000f"
	mustTelha(t, "tenant", "provision", "-data", dst, "-scope", acme, "-name", "acme")
	mustTelha(t, "tenant", "import", "-data", dst, "-scope", "acme", first)
	again := filepath.Join(tmp, "again.telha")
	mustTelha(t, "tenant", "export", "-data", dst, "-scope", acme, "-o", again)
	a, _ := os.ReadFile(first)
	b, _ := os.ReadFile(again)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("export after the move differs: %d and %d bytes", len(a), len(b))
	}

	copyScope := "0190a000-0000-7000-8000-0000000000c1:0190a000-0000-7000-8000-00000000000f"
	mustTelha(t, "tenant", "provision", "-data", src, "-scope", copyScope, "-name", "acme-copy")
	out = mustTelha(t, "tenant", "import", "-data", src, "-scope", "acme-copy", first)
	if !strings.Contains(out, "into acme-copy (") {
		t.Fatalf("import says %q", out)
	}
}

func TestTenantCommandErrors(t *testing.T) {
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	scope := "0190a000-0000-7000-8000-0000000000a1:0190a000-0000-7000-8000-00000000000f"
	mustTelha(t, "tenant", "provision", "-data", data, "-scope", scope, "-name", "acme")
	garbage := filepath.Join(tmp, "garbage")
	if err := os.WriteFile(garbage, []byte("not an export"), 0o600); err != nil {
		t.Fatal(err)
	}
	exists := filepath.Join(tmp, "exists")
	if err := os.WriteFile(exists, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"tenant"}, "missing subcommand"},
		{[]string{"tenant", "rename"}, "unknown subcommand"},
		{[]string{"tenant", "list"}, "missing -data"},
		{[]string{"tenant", "list", "-data", filepath.Join(tmp, "none")}, "no store at"},
		{[]string{"tenant", "provision", "-data", data, "-scope", scope}, "missing -name"},
		{[]string{"tenant", "provision", "-data", data, "-name", "x"}, "missing -scope"},
		{[]string{"tenant", "provision", "-data", data, "-scope", "acme", "-name", "x"}, "want TENANT:ORG"},
		{[]string{"tenant", "provision", "-data", data, "-scope", "00000000-0000-0000-0000-000000000000:00000000-0000-0000-0000-000000000000", "-name", "x"}, "nil tenant or organization id"},
		{[]string{"tenant", "provision", "-data", data, "-scope", scope, "-name", "again"}, "already provisioned"},
		{[]string{"tenant", "provision", "-data", data, "-scope", "0190a000-0000-7000-8000-0000000000a2:0190a000-0000-7000-8000-00000000000f", "-name", "acme"}, "name taken"},
		{[]string{"tenant", "provision", "-data", data, "-scope", "0190a000-0000-7000-8000-0000000000a2:0190a000-0000-7000-8000-00000000000f", "-name", "Bad Name"}, "invalid tenant name"},
		{[]string{"tenant", "export", "-data", data, "-scope", "nobody", "-o", filepath.Join(tmp, "x")}, "unknown tenant"},
		{[]string{"tenant", "export", "-data", data, "-scope", "acme", "-o", exists}, "never overwritten"},
		{[]string{"tenant", "export", "-data", data, "-scope", "acme"}, "missing -o"},
		{[]string{"tenant", "import", "-data", data, "-scope", "acme"}, "missing FILE"},
		{[]string{"tenant", "import", "-data", data, "-scope", "acme", garbage, "more"}, "unexpected argument"},
		{[]string{"tenant", "import", "-data", data, "-scope", "acme", filepath.Join(tmp, "missing")}, "no such file"},
		{[]string{"tenant", "import", "-data", data, "-scope", "acme", garbage}, "not a telha tenant export"},
		{[]string{"tenant", "import", "-data", data, "-scope", "0190a000-0000-7000-8000-0000000000a9:0190a000-0000-7000-8000-00000000000f", garbage}, "is not provisioned"},
	} {
		code, _, errOut := telha(t, tt.args...)
		if code != exitUsage || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("telha %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(tt.args, " "), code, errOut, tt.want)
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(tmp, "*.partial-*")); len(entries) != 0 {
		t.Errorf("failed exports left %v", entries)
	}
}
