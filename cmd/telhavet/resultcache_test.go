package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestResultCacheReplay runs telhavet again and again on a workspace whose
// only file of another build (a_GOOS.go, GOOS=otherOS in telhavet.builds)
// prints with a format constant of another workspace module: with nothing
// changed the other build's results must be replayed, findings included,
// and any edit of the file or of the dependency must run go vet again and
// report what the edit made.
func TestResultCacheReplay(t *testing.T) {
	t.Parallel()
	bin := buildTelhavet(t)
	otherOS := "windows"
	if runtime.GOOS == otherOS {
		otherOS = "linux"
	}
	other := "a/a_" + otherOS + ".go"
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.work":     "go 1.26.0\n\nuse (\n\t./a\n\t./dep\n)\n",
		buildsFile:    "GOOS=" + otherOS + "\n",
		"a/go.mod":    "module example.com/a\n\ngo 1.26.0\n\nrequire example.com/dep v0.0.0\n",
		"a/a.go":      "package a\n",
		other:         "package a\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/dep\"\n)\n\n// F prints.\nfunc F() { fmt.Printf(dep.Format, 1) }\n",
		"dep/go.mod":  "module example.com/dep\n\ngo 1.26.0\n",
		"dep/dep.go":  "package dep\n\n// Format is a format.\nconst Format = \"%d\\n\"\n",
		"a/.cache/ok": "a dot directory, which no import path reaches\n",
	})
	run := func() (code int, findings []string, replayed bool) {
		t.Helper()
		code, findings, stderr := runWorkspace(t, bin, root, "-x")
		vetRan := strings.Contains(stderr, "GOOS="+otherOS+" go vet ")
		replayed = strings.Contains(stderr, "# build GOOS="+otherOS+": go vet's results replayed from ")
		if vetRan == replayed {
			t.Fatalf("go vet of the %s build ran: %v, replayed: %v; want one of the two\nstderr:\n%s", otherOS, vetRan, replayed, stderr)
		}
		return code, findings, replayed
	}
	depFindings := []string{
		other + ":10:23: SA5009: Printf format %s has arg #1 of wrong type int",
		other + ":10:23: printf: fmt.Printf format %s has arg 1 of wrong type int",
	}
	ownFindings := []string{
		other + ":6:23: SA5009: Printf format %d has arg #1 of wrong type string",
		other + ":6:24: printf: fmt.Printf format %d has arg \"x\" of wrong type string",
	}
	steps := []struct {
		name     string
		edit     map[string]string
		code     int
		findings []string
		replayed bool
	}{
		{"first run", nil, 0, nil, false},
		{"nothing changed", nil, 0, nil, true},
		{"dependency edited", map[string]string{"dep/dep.go": "package dep\n\n// Format is a format.\nconst Format = \"%s\\n\"\n"}, 3, depFindings, false},
		{"nothing changed since the finding", nil, 3, depFindings, true},
		{"a dot directory edited", map[string]string{"a/.cache/ok": "changed\n"}, 3, depFindings, true},
		{"file of the other build edited", map[string]string{other: "package a\n\nimport \"fmt\"\n\n// F prints.\nfunc F() { fmt.Printf(\"%d\", \"x\") }\n"}, 3, ownFindings, false},
		{"dependency restored", map[string]string{"dep/dep.go": "package dep\n\n// Format is a format.\nconst Format = \"%d\\n\"\n"}, 3, ownFindings, false},
	}
	for _, s := range steps {
		writeFiles(t, root, s.edit)
		code, findings, replayed := run()
		if code != s.code || !slices.Equal(findings, s.findings) || replayed != s.replayed {
			t.Errorf("%s: exit %d, replayed %v, findings:\n%s\nwant exit %d, replayed %v, findings:\n%s",
				s.name, code, replayed, strings.Join(findings, "\n"), s.code, s.replayed, strings.Join(s.findings, "\n"))
		}
	}
}

// TestResultCacheConcurrentRuns starts two telhavet runs at once on a
// workspace that neither has analyzed: both must report the finding of the
// other build, and a third run must replay it.
func TestResultCacheConcurrentRuns(t *testing.T) {
	t.Parallel()
	bin := buildTelhavet(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.work":          "go 1.26.0\n\nuse ./a\n",
		buildsFile:         "tags=integration\n",
		"a/go.mod":         "module example.com/a\n\ngo 1.26.0\n",
		"a/a.go":           "package a\n",
		"a/integration.go": "//go:build integration\n\npackage a\n\nimport \"fmt\"\n\n// F prints.\nfunc F() { fmt.Printf(\"%d\", \"x\") }\n",
	})
	want := []string{
		"a/integration.go:8:23: SA5009: Printf format %d has arg #1 of wrong type string",
		"a/integration.go:8:24: printf: fmt.Printf format %d has arg \"x\" of wrong type string",
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if code, got, stderr := runWorkspace(t, bin, root, "-x"); code != 3 || !slices.Equal(got, want) {
				t.Errorf("concurrent run: exit %d, findings %q, want 3 and %q\nstderr:\n%s", code, got, want, stderr)
			}
		})
	}
	wg.Wait()
	code, got, stderr := runWorkspace(t, bin, root, "-x")
	if code != 3 || !slices.Equal(got, want) || !strings.Contains(stderr, "# build tags=integration: go vet's results replayed") {
		t.Errorf("after the concurrent runs: exit %d, findings %q, want 3, %q, replayed\nstderr:\n%s", code, got, want, stderr)
	}
}

// testCache returns a result cache in a directory of its own for the
// workspace of writeWorkspace, and the workspace's root.
func testCache(t *testing.T) (*resultCache, string) {
	t.Helper()
	root := writeWorkspace(t)
	t.Setenv("GOWORK", "")
	ws, err := findWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	tool := filepath.Join(t.TempDir(), "telhavet")
	writeFiles(t, filepath.Dir(tool), map[string]string{"telhavet": "an executable"})
	return &resultCache{dir: filepath.Join(t.TempDir(), "cache"), tool: tool, ws: ws}, root
}

// TestResultCacheInputs checks what changes the hash of a run's inputs:
// any file of a workspace module, of a replacement directory and
// go.work.sum, not a file of a module outside the workspace or of a dot
// directory; -overlay and -modfile in GOFLAGS, and a symbolic link to a
// directory, turn the cache off.
func TestResultCacheInputs(t *testing.T) {
	c, root := testCache(t)
	outside := t.TempDir()
	writeFiles(t, root, map[string]string{"a/go.mod": "module example.com/a\n\ngo 1.26.0\n\nreplace example.com/r => " + filepath.Join(outside, "r") + "\n"})
	writeFiles(t, outside, map[string]string{"r/go.mod": "module example.com/r\n", "r/r.go": "package r\n"})
	before, err := c.hashInputs()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file    string // relative to root, or to outside if it starts with "r/"
		changes bool
	}{
		{"a/sub/sub.go", true},
		{"a/n/n.go", true},
		{"a/sub/data.txt", true},
		{"a/testdata/x/x.go", true},
		{"r/r.go", true},
		{"go.work.sum", true},
		{"d/d.go", false},
		{"a/.git/HEAD", false},
		{"b/notes/x.txt", false},
	} {
		dir := root
		if strings.HasPrefix(tt.file, "r/") {
			dir = outside
		}
		writeFiles(t, dir, map[string]string{tt.file: "// edited\n"})
		after, err := c.hashInputs()
		if err != nil {
			t.Fatal(err)
		}
		if changed := !bytes.Equal(before, after); changed != tt.changes {
			t.Errorf("after writing %s: inputs changed %v, want %v", tt.file, changed, tt.changes)
		}
		before = after
	}

	for _, flags := range []string{"-overlay=" + filepath.Join(outside, "overlay.json"), "-mod=mod -modfile=" + filepath.Join(outside, "go.mod")} {
		c.ws.env["GOFLAGS"] = flags
		if _, err := c.hashInputs(); err == nil || !strings.Contains(err.Error(), "GOFLAGS") {
			t.Errorf("with GOFLAGS=%s: %v, want an error naming it", flags, err)
		}
	}
	c.ws.env["GOFLAGS"] = ""

	if err := os.Symlink(outside, filepath.Join(root, "a", "linked")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.hashInputs(); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("with a symbolic link to a directory: %v, want an error naming it", err)
	}
}

// TestResultCacheEntries checks that a question has one entry, replayed
// only for the inputs it was stored with, that concurrent writers and
// readers see whole entries, and that entries unused for maxAge are
// trimmed, the lock of the runs (lockRuns) never.
func TestResultCacheEntries(t *testing.T) {
	c, root := testCache(t)
	name, inputs, err := c.key(vetRun{dir: root, build: build{tags: "x"}, pkgs: []string{"./..."}})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := c.key(vetRun{dir: root, build: build{tags: "y"}, pkgs: []string{"./..."}})
	if err != nil || other == name {
		t.Fatalf("two builds share the entry %s (%v)", name, err)
	}
	if _, ok := c.load(name, inputs); ok {
		t.Fatal("an empty cache replays")
	}

	outputs := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range outputs {
		outputs[i] = bytes.Repeat([]byte{byte('a' + i)}, 1<<16)
		wg.Go(func() {
			if err := c.store(name, inputs, outputs[i]); err != nil {
				t.Error(err)
			}
			if out, ok := c.load(name, inputs); !ok || !slices.ContainsFunc(outputs, func(o []byte) bool { return bytes.Equal(o, out) }) {
				t.Errorf("load during concurrent stores: %v, %d bytes, not one whole output", ok, len(out))
			}
		})
	}
	wg.Wait()
	entries, err := os.ReadDir(c.dir)
	if err != nil || len(entries) != 2 { // the entry and trim.txt
		t.Fatalf("after storing one question 8 times: %v (%v), want its entry and trim.txt", entries, err)
	}

	writeFiles(t, root, map[string]string{"a/a.go": "package a // edited\n"})
	edited, err := c.hashInputs()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.load(name, edited); ok {
		t.Error("an entry replays for other inputs")
	}
	if err := c.store(name, inputs, []byte("stale")); err == nil {
		t.Error("stored results for inputs that changed since")
	}

	old := time.Now().Add(-maxAge - time.Hour)
	if err := os.WriteFile(filepath.Join(c.dir, runLockName), nil, 0o666); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{name, "trim.txt", runLockName} {
		if err := os.Chtimes(filepath.Join(c.dir, f), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.store(other, edited, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(c.dir, name)); err == nil {
		t.Errorf("an entry unused for %v was not trimmed", maxAge)
	}
	if _, err := os.Stat(filepath.Join(c.dir, runLockName)); err != nil {
		t.Errorf("the lock of the runs was trimmed: %v", err)
	}
	if out, ok := c.load(other, edited); !ok || string(out) != "new" {
		t.Errorf("the new entry: %q, %v", out, ok)
	}
}

// BenchmarkResultCacheKey measures what a replay costs on top of reading
// its entry: hashing this repository's workspace and go environment, and
// the telhavet test binary as the executable.
func BenchmarkResultCacheKey(b *testing.B) {
	ws, err := findWorkspace(filepath.Join("..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	tool, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c := &resultCache{tool: tool, ws: ws}
		if _, _, err := c.key(vetRun{build: build{tags: "x"}}); err != nil {
			b.Fatal(err)
		}
	}
}
