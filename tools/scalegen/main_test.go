package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The workspaces of the tests: testN packages, one in every testEvery
// breaking a rule. bench.sh edits the package testN/8 = 1: its importers
// are 2 and 3, theirs 4 to 7.
const (
	testN     = 12
	testEvery = 5
)

// telhavet returns the telhavet binary: $TELHAVET (make passes bin/telhavet)
// or one built from this repository.
func telhavet(t *testing.T) string {
	t.Helper()
	if tv := os.Getenv("TELHAVET"); tv != "" {
		abs, err := filepath.Abs(tv)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	tv := filepath.Join(t.TempDir(), "telhavet")
	build := exec.Command("go", "build", "-o", tv, "telha.dev/cmd/telhavet")
	build.Dir = filepath.Join("..", "..")
	build.Env = append(os.Environ(), "GOWORK=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build telhavet: %v\n%s", err, out)
	}
	return tv
}

// TestGateReportsExactlyTheViolations checks the generated workspace: it
// builds, and telhavet reports the packages that scalegen makes break a
// rule, each with its systemscope findings, and nothing else.
func TestGateReportsExactlyTheViolations(t *testing.T) {
	coreDir, err := filepath.Abs(filepath.Join("..", "..", "core"))
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(t.TempDir(), "ws")
	if err := generate(ws, coreDir, testN, testEvery); err != nil {
		t.Fatal(err)
	}
	if err := generate(ws, coreDir, testN, testEvery); err == nil {
		t.Error("generate wrote over an existing workspace")
	}

	cmd := exec.Command(telhavet(t), "-json", "./...")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "GOWORK=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("telhavet -json ./... = %v, want exit 3 (findings)\n%s", err, stderr.String())
	}

	reported := make(map[string][]string) // package directory -> analyzers
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var tree map[string]map[string][]struct {
			Posn string `json:"posn"`
		}
		if err := dec.Decode(&tree); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding telhavet -json: %v\n%s", err, out)
		}
		for _, byAnalyzer := range tree {
			for analyzer, diags := range byAnalyzer {
				for _, d := range diags {
					dir := filepath.Base(filepath.Dir(d.Posn))
					reported[dir] = append(reported[dir], analyzer)
				}
			}
		}
	}
	var want []string
	for i := range testN {
		if violates(i, testEvery) {
			want = append(want, name(i))
		}
	}
	var got []string
	for dir, analyzers := range reported {
		got = append(got, dir)
		for _, a := range analyzers {
			if a != "systemscope" {
				t.Errorf("%s: a %s finding; the generated code breaks systemscope only", dir, a)
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("telhavet reported the packages %v, want those scalegen makes violate: %v", got, want)
	}
}

// TestBenchScript runs bench.sh on a small workspace, warm only and
// without golangci-lint (make bench-scale measures the rest): every line
// is there with its figures, the gate exits 3 on the planted violations,
// and an edit analyzes again what go vet's cache must: after a leaf's, the
// leaf alone; after an inner package's, it, its importers and theirs,
// whose facts carry the inner package's, and no other.
func TestBenchScript(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tools/scalegen/bench.sh", telhavet(t), "none", strconv.Itoa(testN))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK=", "COLD=no", "EVERY="+strconv.Itoa(testEvery))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench.sh: %v\n%s", err, stderr.String())
	}
	n := strconv.Itoa(testN)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 {
		t.Fatalf("bench.sh printed %d lines, want 4:\n%s", len(lines), out)
	}
	for i, name := range []string{"telhavet-warm", "vettool-warm"} {
		fields := strings.Fields(lines[i])
		if len(fields) != 6 || fields[0] != n || fields[1] != name {
			t.Errorf("line %q, want %q, then wall, memory, tree memory and exit status", lines[i], n+" "+name)
			continue
		}
		for _, f := range fields[2:5] {
			if v, err := strconv.ParseFloat(f, 64); err != nil || v <= 0 {
				t.Errorf("%s: figure %q is not a positive number", name, f)
			}
		}
		if name == "telhavet-warm" && fields[5] != "3" {
			t.Errorf("%s exited %s, want 3 (the planted violations)", name, fields[5])
		}
	}

	for i, edit := range []struct {
		pkg  string
		want []string
	}{
		{"p0001", []string{"p0001", "p0002", "p0003", "p0004", "p0005", "p0006", "p0007"}},
		{name(testN - 1), []string{name(testN - 1)}},
	} {
		line := lines[2+i]
		prefix := n + " reanalyzed " + edit.pkg + ": "
		reanalyzed, ok := strings.CutPrefix(line, prefix)
		if !ok {
			t.Errorf("line %q, want %q and the packages analyzed again", line, prefix)
			continue
		}
		if got := slices.Compact(strings.Fields(reanalyzed)); !slices.Equal(got, edit.want) {
			t.Errorf("after an edit of %s, telhavet analyzed again %v, want %v", edit.pkg, got, edit.want)
		}
	}
}
