package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSourceCommands(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "store")
	scope := "0190a000-0000-7000-8000-0000000000a1:0190a000-0000-7000-8000-00000000000f"
	other := "0190a000-0000-7000-8000-0000000000a2:0190a000-0000-7000-8000-00000000000f"
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	doc := write("doc.txt", "Ada Lovelace wrote the first program.\n")
	bad := write("bad.txt", "valid, then \xff")
	call := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	code, out, errOut := call("source", "put", "-data", data, "-scope", scope, doc)
	id := strings.TrimSpace(out)
	if code != exitOK || len(id) != 36 || errOut != "" {
		t.Fatalf("put: %d, %q, %q", code, out, errOut)
	}
	if code, out, _ := call("source", "put", "-data", data, "-scope", scope, doc); code != exitOK || strings.TrimSpace(out) != id {
		t.Fatalf("put again: %d, %q, want the same id %s", code, out, id)
	}
	if code, out, _ := call("source", "get", "-data", data, "-scope", scope, "-id", id); code != exitOK || out != "Ada Lovelace wrote the first program.\n" {
		t.Fatalf("get: %d, %q", code, out)
	}
	if code, out, _ := call("source", "facts", "-data", data, "-scope", scope, "-id", id); code != exitOK || !strings.Contains(out, "no facts recorded") {
		t.Fatalf("facts: %d, %q", code, out)
	}
	// A registered tenant is named by its display name too.
	if code, _, errOut := call("tenant", "provision", "-data", data, "-scope", scope, "-name", "acme"); code != exitOK {
		t.Fatalf("tenant provision: %d, %q", code, errOut)
	}
	if code, out, _ := call("source", "get", "-data", data, "-scope", "acme", "-id", id); code != exitOK || !strings.HasPrefix(out, "Ada Lovelace") {
		t.Fatalf("get by tenant name: %d, %q", code, out)
	}
	if code, out, _ := call("source", "-h"); code != exitOK || !strings.Contains(out, "telha source put") {
		t.Fatalf("source -h: %d, %q", code, out)
	}

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no subcommand", []string{"source"}, "missing subcommand"},
		{"unknown subcommand", []string{"source", "frob"}, `unknown subcommand "frob"`},
		{"no scope", []string{"source", "put", "-data", data, doc}, "-scope"},
		{"unknown tenant name", []string{"source", "put", "-data", data, "-scope", "nobody", doc}, `unknown tenant "nobody"`},
		{"nil tenant", []string{"source", "put", "-data", data, "-scope", "00000000-0000-0000-0000-000000000000:0190a000-0000-7000-8000-00000000000f", doc}, "nil tenant"},
		{"no data", []string{"source", "put", "-scope", scope, doc}, "missing -data"},
		{"no file", []string{"source", "put", "-data", data, "-scope", scope}, "want one FILE"},
		{"missing file", []string{"source", "put", "-data", data, "-scope", scope, filepath.Join(dir, "absent")}, "no such file"},
		{"a directory", []string{"source", "put", "-data", data, "-scope", scope, dir}, "not a regular file"},
		{"not canonical", []string{"source", "put", "-data", data, "-scope", scope, bad}, "byte 12: document is not canonical text"},
		{"bad id", []string{"source", "get", "-data", data, "-scope", scope, "-id", "nope"}, "is not a blob id"},
		{"unknown blob", []string{"source", "get", "-data", data, "-scope", scope, "-id", "0190a000-0000-7000-8000-000000000001"}, "no such blob"},
		{"another tenant's blob", []string{"source", "get", "-data", data, "-scope", other, "-id", id}, "no such blob"},
		{"facts of another tenant's blob", []string{"source", "facts", "-data", data, "-scope", other, "-id", id}, "no such blob"},
		{"get from no store", []string{"source", "get", "-data", filepath.Join(dir, "none"), "-scope", scope, "-id", id}, "no store at"},
		{"bad flag", []string{"source", "get", "-frob"}, "flag provided but not defined"},
	} {
		code, out, errOut := call(tt.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tt.name, code, out, errOut, tt.want)
		}
	}

	// An erased tenant takes no document, and has none.
	if code, _, errOut := call("tenant", "erase", "-yes", "-data", data, "-scope", "acme"); code != exitOK {
		t.Fatalf("tenant erase: %d, %q", code, errOut)
	}
	for _, args := range [][]string{
		{"source", "put", "-data", data, "-scope", scope, doc},
		{"source", "get", "-data", data, "-scope", scope, "-id", id},
	} {
		if code, _, errOut := call(args...); code != exitUsage || !strings.Contains(errOut, "is erased") {
			t.Errorf("%v after the erasure: exit %d, %q", args, code, errOut)
		}
	}
}
