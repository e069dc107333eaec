package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"telha.dev/analyzers/suite"
)

// bypassDir is an adversarial fixture: a go.work workspace with the real
// telha.dev/core, in which every line that reaches what only the key
// authority may reach is marked "// bypass" (or, where a directive or a
// cgo flag leaves no room, preceded by a "bypass-next" comment), one
// package per class of bypass, beside near misses that are not marked.
const bypassDir = "testdata/bypass"

// TestBypass proves that telhavet reports every marked line of the
// fixture with a Telha rule, and nothing anywhere else: no line unmarked,
// in any build configuration of the fixture's telhavet.builds.
func TestBypass(t *testing.T) {
	t.Parallel()
	bin := buildTelhavet(t)
	dir, err := filepath.Abs(bypassDir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(dir, "go.work"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(t, cmd.Run()); code != 3 {
		t.Fatalf("telhavet -json ./... exited with %d, want 3 (findings)\nstderr:\n%s", code, &stderr)
	}

	marked := markedLines(t, dir)
	rules := make(map[string]bool)
	for _, a := range suite.Analyzers {
		rules[a.Name] = true
	}
	reported := make(map[string]bool) // lines reported by a Telha rule
	for _, f := range findingsFromJSON(t, dir, stdout.Bytes()) {
		file, rest, _ := strings.Cut(f, ":")
		line, rest, _ := strings.Cut(rest, ":")
		_, rest, _ = strings.Cut(rest, ": ")
		analyzer, _, _ := strings.Cut(rest, ": ")
		at := file + ":" + line
		if !marked[at] {
			t.Errorf("unmarked line reported: %s", f)
		}
		if rules[analyzer] {
			reported[at] = true
		}
	}
	var missed []string
	for at := range marked {
		if !reported[at] {
			missed = append(missed, at)
		}
	}
	slices.Sort(missed)
	for _, at := range missed {
		t.Errorf("marked line not reported by a Telha rule: %s", at)
	}
	t.Logf("%d marked lines, all reported", len(marked)-len(missed))
}

// markedLines returns the marked lines of the fixture's files, as
// "file:line" with the file relative to dir.
func markedLines(t *testing.T, dir string) map[string]bool {
	t.Helper()
	marked := make(map[string]bool)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			switch {
			case strings.Contains(line, "bypass-next"):
				// The next line with more than "//", which gofmt puts
				// before a directive.
				next := i + 1
				for next < len(lines) && strings.TrimSpace(lines[next]) == "//" {
					next++
				}
				marked[fmt.Sprintf("%s:%d", filepath.ToSlash(rel), next+1)] = true
			case strings.HasSuffix(strings.TrimSpace(line), "// bypass"):
				marked[fmt.Sprintf("%s:%d", filepath.ToSlash(rel), i+1)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(marked) < 50 {
		t.Fatalf("only %d marked lines in %s", len(marked), dir)
	}
	return marked
}
