package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/fixture.golden from the current findings")

// The fixture is a module outside go.work, so every go command run on it
// needs GOWORK=off: inside /work/main the go.work above it would refuse it.
const fixtureDir = "testdata/fixture"

const goldenFile = "testdata/fixture.golden"

// TestFixture proves that the gate bites: telhavet, built as users build it,
// reports exactly the findings of testdata/fixture.golden on a module full of
// violations, and exits with status 3, with -json too.
func TestFixture(t *testing.T) {
	t.Parallel()
	bin := buildTelhavet(t)
	dir := absFixture(t)

	cmd := exec.Command(bin, "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if code := exitCode(t, err); code != 3 {
		t.Fatalf("telhavet -json ./... exited with %d, want 3 (findings)\nstderr:\n%s", code, &stderr)
	}
	got := findingsFromJSON(t, dir, stdout.Bytes())

	if *update {
		if err := os.WriteFile(goldenFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want := readGolden(t); !slices.Equal(got, want) {
		t.Errorf("findings differ from %s (rerun with -update after checking them):\n%s", goldenFile, diffLines(want, got))
	}
}

// TestFixtureFormats runs the fixture again for the text and SARIF
// outputs: the same findings, in file, line and column order, with the same
// exit status.
func TestFixtureFormats(t *testing.T) {
	t.Parallel()
	bin := buildTelhavet(t)
	dir := absFixture(t)
	want := readGolden(t)

	run := func(args ...string) (string, string) {
		cmd := exec.Command(bin, append(args, "./...")...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if code := exitCode(t, cmd.Run()); code != 3 {
			t.Fatalf("telhavet %q exited with %d, want 3\nstderr:\n%s", args, code, &stderr)
		}
		return stdout.String(), stderr.String()
	}

	_, text := run()
	var got []diagnostic
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		posn, rest, _ := strings.Cut(line, ": ")
		analyzer, msg, _ := strings.Cut(rest, ": ")
		got = append(got, diag(analyzer, strings.TrimPrefix(posn, dir+string(filepath.Separator)), msg))
	}
	if len(got) != len(want) {
		t.Errorf("text output has %d findings, want %d:\n%s", len(got), len(want), text)
	}
	if !slices.IsSortedFunc(got, compareDiagnostics) {
		t.Errorf("text output is not in file, line and column order:\n%s", text)
	}

	out, _ := run("-sarif")
	var log sarifLog
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	results := log.Runs[0].Results
	if len(results) != len(want) {
		t.Errorf("SARIF has %d results, want %d", len(results), len(want))
	}
	for i, r := range results {
		loc := r.Locations[0].PhysicalLocation
		g := got[min(i, len(got)-1)]
		if loc.ArtifactLocation.URI != g.file || loc.Region.StartLine != g.line || loc.Region.StartColumn != g.col || r.RuleID != g.Analyzer {
			t.Errorf("SARIF result %d = %s %s:%d:%d, text finding %d = %s", i, r.RuleID, loc.ArtifactLocation.URI, loc.Region.StartLine, loc.Region.StartColumn, i, g.Posn)
		}
	}
}

// TestFixtureVetTool runs the same fixture through go vet -vettool, which
// drives telhavet through the unit protocol, one package at a time: the
// findings must be the same and go vet must fail.
func TestFixtureVetTool(t *testing.T) {
	t.Parallel()
	bin := buildTelhavet(t)
	dir := absFixture(t)

	cmd := exec.Command("go", "vet", "-vettool="+bin, "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if code := exitCode(t, err); code == 0 {
		t.Fatalf("go vet -vettool=telhavet ./... succeeded on the fixture; want a failure\n%s", out)
	}

	// go vet prints "file:line:col: message", without the analyzer's name,
	// plus "# package" headers and indented related information.
	var got []string
	for line := range strings.SplitSeq(string(out), "\n") {
		if m := vetLine.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[2], "\t") {
			got = append(got, m[1]+": "+m[2])
		}
	}
	slices.Sort(got)

	var want []string
	for _, g := range readGolden(t) {
		// Drop the analyzer name: "file:line:col: analyzer: message".
		posn, rest, _ := strings.Cut(g, ": ")
		_, msg, _ := strings.Cut(rest, ": ")
		want = append(want, posn+": "+msg)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("go vet -vettool findings differ from %s:\n%s", goldenFile, diffLines(want, got))
	}
}

var vetLine = regexp.MustCompile(`^(\S+\.go:\d+:\d+): (.*)$`)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// buildTelhavet builds the telhavet command once per test binary, into a
// directory removed at the end of the run, and returns its path. The
// fixture imports grocksdb, whose cgo preamble needs RocksDB's headers.
func buildTelhavet(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/include/rocksdb/c.h"); err != nil {
		t.Fatalf("the fixture needs RocksDB's C headers (Debian librocksdb-dev; make deps): %v", err)
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "telhavet-test-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "telhavet")
		out, err := exec.Command("go", "build", "-o", builtBin, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

func absFixture(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// exitCode returns the exit status of a finished command.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.ExitCode()
	default:
		t.Fatal(err)
		return -1
	}
}

// findingsFromJSON flattens telhavet's -json output into sorted lines
// "file:line:col: analyzer: message", with paths relative to dir.
func findingsFromJSON(t *testing.T, dir string, out []byte) []string {
	t.Helper()
	type diagnostic struct {
		Posn    string `json:"posn"`
		Message string `json:"message"`
	}
	// package ID -> analyzer -> diagnostics, or {"error": ...}.
	var tree map[string]map[string]json.RawMessage
	if err := json.Unmarshal(out, &tree); err != nil {
		t.Fatalf("decoding telhavet -json output: %v\n%s", err, out)
	}
	var lines []string
	for pkg, byAnalyzer := range tree {
		for analyzer, raw := range byAnalyzer {
			var diags []diagnostic
			if err := json.Unmarshal(raw, &diags); err != nil {
				t.Fatalf("%s: %s failed: %s", pkg, analyzer, raw)
			}
			for _, d := range diags {
				posn := filepath.ToSlash(strings.TrimPrefix(d.Posn, dir+string(filepath.Separator)))
				lines = append(lines, posn+": "+analyzer+": "+d.Message)
			}
		}
	}
	slices.Sort(lines)
	return lines
}

func readGolden(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// diffLines lists the lines missing from got and the unexpected ones.
func diffLines(want, got []string) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			b.WriteString("missing:    " + w + "\n")
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			b.WriteString("unexpected: " + g + "\n")
		}
	}
	if b.Len() == 0 {
		return "the same lines, repeated a different number of times"
	}
	return b.String()
}

// TestMalformedConf builds telhavet with a grant that gives no reason in
// authority.conf (through -overlay, as a reviewer's typo would be compiled
// in): it must stop at once, exit 1 and name the line, as a malformed mark
// does, rather than lift or keep a restriction silently; go vet with it as
// its tool fails too.
func TestMalformedConf(t *testing.T) {
	t.Parallel()
	conf, err := filepath.Abs("../../analyzers/authority/authority.conf")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "authority.conf")
	overlay := filepath.Join(dir, "overlay.json")
	writeFiles(t, dir, map[string]string{
		"authority.conf": string(data) + "grant telha.dev/jobs unsafe\n",
		"overlay.json":   `{"Replace": {"` + conf + `": "` + bad + `"}}`,
		"ws/go.mod":      "module example.com/ws\n\ngo 1.26.0\n",
		"ws/ws.go":       "package ws\n",
	})
	bin := filepath.Join(dir, "telhavet")
	if out, err := exec.Command("go", "build", "-overlay", overlay, "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	lines := strings.Count(string(data), "\n") + 1
	want := fmt.Sprintf("authority.conf:%d: grant telha.dev/jobs unsafe: give the reason", lines)
	for _, args := range [][]string{{bin, "./..."}, {"go", "vet", "-vettool=" + bin, "./..."}} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = filepath.Join(dir, "ws")
		cmd.Env = append(os.Environ(), "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if code := exitCode(t, err); code == 0 || args[0] == bin && code != 1 || !strings.Contains(string(out), want) {
			t.Errorf("%s exited %d with\n%s\nwant a failure (1 for telhavet) and %q", strings.Join(args, " "), code, out, want)
		}
	}
}

// TestRules lists the Telha rules for scripts.
func TestRules(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(buildTelhavet(t), "rules").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(out)); !slices.Equal(got, telhaRules()) {
		t.Errorf("telhavet rules = %q, want %q", got, telhaRules())
	}
}
