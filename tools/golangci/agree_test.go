package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"telha.dev/analyzers/authority"
)

// A fixture is a tree of Telha violations that the three drivers of the
// rules must judge alike.
type fixture struct {
	name string
	dir  string   // absolute
	env  []string // how the go command finds its modules there
}

// TestAgree runs the Telha rules through their three drivers, telhavet,
// go vet -vettool and the golangci-lint plugin, over the violation fixture
// (a module) and the adversarial bypass fixture (a workspace with an
// external test package at a module root, build-tagged files, packages
// under testdata, vendor, _ and . directories), and requires the same findings: the
// editor shows what the gate enforces. go vet and golangci-lint are run
// where telhavet goes by itself: on every module, in each build of the
// fixture's telhavet.builds on the packages with files the default build
// leaves out, and on the packages under testdata, vendor, _ and .
// directories that telhavet analyzed. golangci-lint honours //nolint, which the gate does
// not: the lines that hold one are left out of its comparison.
//
// It needs the two tools built (make agree builds them): TELHAVET and
// GOLANGCI_LINT name them.
func TestAgree(t *testing.T) {
	tv, gl := tool(t, "TELHAVET"), tool(t, "GOLANGCI_LINT")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tv, "rules").Output()
	if err != nil {
		t.Fatalf("%s rules: %v", tv, err)
	}
	rules := strings.Fields(string(out))
	testdata := filepath.Join(root, "cmd", "telhavet", "testdata")
	bypass := filepath.Join(testdata, "bypass")
	for _, fx := range []fixture{
		{"fixture", filepath.Join(testdata, "fixture"), []string{"GOWORK=off"}},
		{"bypass", bypass, []string{"GOWORK=" + filepath.Join(bypass, "go.work")}},
	} {
		t.Run(fx.name, func(t *testing.T) {
			t.Parallel()
			want, pkgs := fx.telhavet(t, tv, rules)
			if len(want) == 0 {
				t.Fatal("telhavet reported nothing")
			}
			var vet, lint []string
			for _, r := range fx.runs(t, pkgs) {
				vet = append(vet, fx.vet(t, tv, rules, r)...)
				lint = append(lint, fx.golangci(t, gl, rules, r)...)
			}
			compare(t, "go vet -vettool", want, vet)
			compare(t, "golangci-lint", fx.withoutNolint(t, want), lint)
			t.Logf("%d findings, the same in the three drivers", len(want))
		})
	}
}

// tool returns the path of the tool that the environment variable names.
func tool(t *testing.T, env string) string {
	t.Helper()
	path := os.Getenv(env)
	if path == "" {
		t.Fatalf("%s is not set: run the test with make agree, which builds the tools", env)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s: %v", env, err)
	}
	return path
}

// telhavet returns the Telha findings of telhavet ./... in the fixture, as
// "file:line:col: rule: message" relative to it, and the import paths of
// the packages it reported on.
func (fx fixture) telhavet(t *testing.T, tv string, rules []string) (findings, pkgs []string) {
	cmd := exec.Command(tv, "-json", "./...")
	cmd.Dir = fx.dir
	cmd.Env = append(os.Environ(), fx.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("telhavet -json ./...: %v\n%s", err, &stderr)
	}
	findings, pkgs = fx.fromJSON(t, stdout.Bytes(), rules)
	return findings, pkgs
}

// A run is where go vet and golangci-lint go: packages of one module, in
// one build.
type run struct {
	dir  string   // the module's directory
	env  []string // the build's settings
	tags string
	pkgs []string // directories, relative to dir: "./...", "./buildtags"
}

// runs returns the runs that cover what telhavet analyzed in the fixture:
// the packages of pkgs under testdata, vendor, _ and . directories (first:
// modules' packages import them), each module in the default build, and the
// packages with files the default build leaves out in the other builds.
func (fx fixture) runs(t *testing.T, pkgs []string) []run {
	var runs, hidden []run
	out := fx.goCmd(t, fx.dir, nil, "list", "-m", "-f", "{{.Path}} {{.Dir}}")
	var modules []string
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		if !within(dir, fx.dir) || authority.Default.IsBinding(path) {
			continue // the real authority, and stubs of bindings, hold no findings
		}
		modules = append(modules, dir)
		runs = append(runs, run{dir: dir, pkgs: []string{"./..."}})
	}
	builds := readBuilds(t, fx.dir)
	for _, m := range modules {
		ignoring := fx.goCmd(t, m, nil, "list", "-e", "-f", "{{if .IgnoredGoFiles}}{{.Dir}}{{end}}", "./...")
		var dirs []string
		for d := range strings.FieldsSeq(ignoring) {
			dirs = append(dirs, "./"+rel(t, m, d))
		}
		for _, b := range builds {
			if len(dirs) > 0 {
				runs = append(runs, run{dir: m, env: b.env, tags: b.tags, pkgs: dirs})
			}
		}
	}
	for _, p := range pkgs {
		if !hiddenPath(p) {
			continue
		}
		dir := strings.TrimSpace(fx.goCmd(t, fx.dir, nil, "list", "-f", "{{.Dir}}", p))
		for _, m := range modules {
			if within(dir, m) && !slices.ContainsFunc(modules, func(n string) bool { return n != m && within(n, m) && within(dir, n) }) {
				hidden = append(hidden, run{dir: m, pkgs: []string{"./" + rel(t, m, dir)}})
			}
		}
	}
	return append(hidden, runs...)
}

// vet returns the Telha findings of go vet -vettool in a run.
func (fx fixture) vet(t *testing.T, tv string, rules []string, r run) []string {
	args := []string{"vet", "-vettool=" + tv, "-json"}
	if r.tags != "" {
		args = append(args, "-tags="+r.tags)
	}
	for _, rule := range rules {
		args = append(args, "-"+rule)
	}
	// go vet caches a package's results without telling whether it was
	// analyzed in full or only for its importers' facts: a package first
	// analyzed as a dependency, by an earlier run, would replay no
	// findings. The flag, which does nothing else, keeps this test's
	// results apart; runs asks for packages before their importers.
	args = append(args, fmt.Sprintf("-telhainventory.pass=%d", vetNonce))
	cmd := exec.Command("go", append(args, r.pkgs...)...)
	cmd.Dir = r.dir
	cmd.Env = slices.Concat(os.Environ(), fx.env, r.env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run() // go vet fails where it finds something; what it printed is the answer
	if stdout.Len() == 0 && stderr.Len() > 0 && !strings.Contains(stderr.String(), "\n") {
		t.Fatalf("go vet in %s: %s", r.dir, &stderr)
	}
	findings, _ := fx.fromJSON(t, stdout.Bytes(), rules)
	return findings
}

// vetNonce is the -telhainventory.pass of this test's go vet runs.
var vetNonce = os.Getpid()

// golangciLine is a finding of golangci-lint's text output.
var golangciLine = regexp.MustCompile(`^(/\S+:\d+:\d+): (\w+): (.*) \(telhavet\)$`)

// golangci returns the Telha findings of golangci-lint in a run.
func (fx fixture) golangci(t *testing.T, gl string, rules []string, r run) []string {
	args := []string{"run", "--allow-parallel-runners", "--output.text.path=stdout", "--show-stats=false", "--path-mode=abs"}
	if r.tags != "" {
		args = append(args, "--build-tags="+r.tags)
	}
	cmd := exec.Command(gl, append(args, r.pkgs...)...)
	cmd.Dir = r.dir
	cmd.Env = slices.Concat(os.Environ(), fx.env, r.env)
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("golangci-lint %q in %s: %v\n%s", r.pkgs, r.dir, err, out)
	}
	var findings []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := golangciLine.FindStringSubmatch(sc.Text())
		if m != nil && slices.Contains(rules, m[2]) {
			findings = append(findings, rel(t, fx.dir, m[1])+": "+m[2]+": "+m[3])
		}
	}
	return findings
}

// fromJSON returns the Telha findings of go vet's JSON output (telhavet's
// is the same), relative to the fixture, and the import paths of the
// packages they are in.
func (fx fixture) fromJSON(t *testing.T, out []byte, rules []string) (findings, pkgs []string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var tree map[string]map[string]json.RawMessage
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("decoding JSON findings: %v\n%s", err, out)
		}
		for pkg, byAnalyzer := range tree {
			path, _, _ := strings.Cut(pkg, " [")
			pkgs = append(pkgs, strings.TrimSuffix(path, "_test"))
			for analyzer, raw := range byAnalyzer {
				if !slices.Contains(rules, analyzer) {
					continue
				}
				var diags []struct{ Posn, Message string }
				if err := json.Unmarshal(raw, &diags); err != nil {
					t.Fatalf("%s: %s failed: %s", pkg, analyzer, raw)
				}
				for _, d := range diags {
					findings = append(findings, rel(t, fx.dir, d.Posn)+": "+analyzer+": "+d.Message)
				}
			}
		}
	}
	slices.Sort(pkgs)
	return findings, slices.Compact(pkgs)
}

// withoutNolint drops the findings on lines that hold //nolint.
func (fx fixture) withoutNolint(t *testing.T, findings []string) []string {
	var out []string
	for _, f := range findings {
		file, rest, _ := strings.Cut(f, ":")
		line, _, _ := strings.Cut(rest, ":")
		data, err := os.ReadFile(filepath.Join(fx.dir, file))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		if n, err := strconv.Atoi(line); err == nil && n >= 1 && n <= len(lines) && strings.Contains(lines[n-1], "//nolint") {
			continue
		}
		out = append(out, f)
	}
	return out
}

// compare fails the test if the sets of findings differ.
func compare(t *testing.T, driver string, want, got []string) {
	t.Helper()
	slices.Sort(want)
	slices.Sort(got)
	want, got = slices.Compact(want), slices.Compact(got)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s misses: %s", driver, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("%s adds: %s", driver, g)
		}
	}
}

// A build is a line of telhavet.builds: settings and build tags.
type build struct {
	env  []string
	tags string
}

// readBuilds reads the fixture's telhavet.builds, if it has one.
func readBuilds(t *testing.T, dir string) []build {
	data, err := os.ReadFile(filepath.Join(dir, "telhavet.builds"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var builds []build
	for line := range strings.SplitSeq(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		var b build
		for _, f := range strings.Fields(line) {
			if tags, ok := strings.CutPrefix(f, "tags="); ok {
				b.tags = tags
			} else {
				b.env = append(b.env, f)
			}
		}
		if len(b.env) > 0 || b.tags != "" {
			builds = append(builds, b)
		}
	}
	return builds
}

// goCmd runs the go command in dir with the fixture's environment.
func (fx fixture) goCmd(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = slices.Concat(os.Environ(), fx.env, env)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s in %s: %v", strings.Join(args, " "), dir, err)
	}
	return string(out)
}

// hiddenPath reports whether an import path has an element that ./...
// skips: testdata, vendor, or a name starting with "_" or ".".
func hiddenPath(p string) bool {
	for elem := range strings.SplitSeq(p, "/") {
		if elem == "testdata" || elem == "vendor" || strings.HasPrefix(elem, "_") || strings.HasPrefix(elem, ".") {
			return true
		}
	}
	return false
}

// rel returns path relative to dir, slash-separated.
func rel(t *testing.T, dir, path string) string {
	r, err := filepath.Rel(dir, path)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(r)
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	r, err := filepath.Rel(dir, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}
