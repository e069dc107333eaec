package main

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the command lists of the package doc and the README from the command table")

// docBlocks are the files that list the commands, and the text that
// opens and closes the list in each.
var docBlocks = []struct {
	path, begin, end string
	render           func(list string) string
}{
	{"main.go", "// The commands (TestDocs keeps this list equal to the command table):\n//\n", "//\n// STORE is",
		func(list string) string {
			var b strings.Builder
			for _, line := range strings.Split(strings.TrimSuffix(list, "\n"), "\n") {
				b.WriteString("//\t" + strings.TrimPrefix(line, "  ") + "\n")
			}
			return b.String()
		}},
	{"../../README.md", "<!-- commands: generated from cmd/telha's command table by go test -run TestDocs -update -->\n", "<!-- commands: end -->",
		func(list string) string {
			var b strings.Builder
			b.WriteString("```sh\n")
			for _, line := range strings.Split(strings.TrimSuffix(list, "\n"), "\n") {
				b.WriteString(strings.TrimPrefix(line, "  ") + "\n")
			}
			b.WriteString("```\n")
			return b.String()
		}},
}

// TestDocs: the package doc and the README's CLI section list exactly the
// commands of the table, with their usage lines, as telha -h does.
func TestDocs(t *testing.T) {
	list := commandList()
	for _, d := range docBlocks {
		b, err := os.ReadFile(d.path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		i := strings.Index(text, d.begin)
		j := strings.Index(text, d.end)
		if i < 0 || j < i {
			t.Fatalf("%s: no command list between %q and %q", d.path, d.begin, d.end)
		}
		i += len(d.begin)
		want := d.render(list)
		if text[i:j] == want {
			continue
		}
		if !*update {
			t.Errorf("%s: the command list differs from the command table; go test -run TestDocs -update rewrites it:\n%s", d.path, want)
			continue
		}
		if err := os.WriteFile(d.path, []byte(text[:i]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut strings.Builder
	if code := run([]string{"-h"}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), list) {
		t.Errorf("telha -h: exit %d, stdout %q; want the command list", code, out.String())
	}
}
