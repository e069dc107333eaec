package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"telha.dev/analyzers/authority"
)

// writeFiles writes files, named by slash-separated paths relative to
// root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeWorkspace lays out a go.work that uses modules a, b/c and a/n
// (nested in a), next to a module d that the workspace leaves out, and
// returns its root.
func writeWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.work":       "go 1.26.0\n\nuse (\n\t./a\n\t./a/n\n\t./b/c\n)\n",
		"a/go.mod":      "module example.com/a\n\ngo 1.26.0\n",
		"a/a.go":        "package a\n",
		"a/sub/sub.go":  "package sub\n",
		"a/n/go.mod":    "module example.com/n\n\ngo 1.26.0\n",
		"a/n/n.go":      "package n\n",
		"b/c/go.mod":    "module example.com/c\n\ngo 1.26.0\n",
		"b/c/c.go":      "package c\n",
		"d/go.mod":      "module example.com/d\n\ngo 1.26.0\n",
		"d/d.go":        "package d\n",
		"b/notes/x.txt": "not a package\n",
	})
	return root
}

func TestExpandPatterns(t *testing.T) {
	root := writeWorkspace(t)
	t.Setenv("GOWORK", "") // find root/go.work from the directory, as go does

	tests := []struct {
		dir      string
		patterns []string
		want     []string
	}{
		{".", []string{"./..."}, []string{"./a/...", "./a/n/...", "./b/c/..."}},
		{"b", []string{"./..."}, []string{"./c/..."}},
		{"b", []string{"../..."}, []string{"../a/...", "../a/n/...", "./c/..."}},
		{"a", []string{"./..."}, []string{"./...", "./n/..."}}, // a module and the one nested in it
		{"b/c", []string{"./..."}, []string{"./..."}},          // inside a module: as go vet
		{".", []string{"./a/sub/..."}, []string{"./a/sub/..."}},
		{".", []string{"example.com/...", "."}, []string{"example.com/...", "."}},
		{".", []string{"./d/..."}, []string{"./d/..."}}, // no workspace module there: go reports it
	}
	for _, tt := range tests {
		dir := filepath.Join(root, tt.dir)
		ws, err := findWorkspace(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ws.expandPatterns(dir, tt.patterns)
		if err != nil {
			t.Fatalf("expandPatterns(%s, %q): %v", tt.dir, tt.patterns, err)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("expandPatterns(%s, %q) = %q, want %q", tt.dir, tt.patterns, got, tt.want)
		}
	}

	t.Run("GOWORK=off", func(t *testing.T) {
		t.Setenv("GOWORK", "off")
		ws, err := findWorkspace(filepath.Join(root, "a"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := ws.expandPatterns(filepath.Join(root, "a"), []string{"./..."})
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"./..."}; !slices.Equal(got, want) || ws.work || len(ws.modules) != 1 {
			t.Errorf("with GOWORK=off: %q (workspace %+v), want %q and the main module alone", got, ws, want)
		}
	})
}

func TestAudit(t *testing.T) {
	c := authority.Default
	tests := []struct {
		name    string
		modules []module
		ok      bool
	}{
		{"in place", []module{{"telha.dev/core", "/r/core"}, {"telha.dev/core/storage/etcd", "/r/core/storage/etcd"}}, true},
		{"elsewhere, same layout", []module{{"telha.dev/core", "/s/core"}}, true},
		{"core renamed elsewhere", []module{{"telha.dev/core", "/r/notcore"}}, false},
		{"etcd elsewhere", []module{{"telha.dev/core", "/r/core"}, {"telha.dev/core/storage/etcd", "/r/graph/etcd"}}, false},
		{"etcd in another repository", []module{{"telha.dev/core", "/r/core"}, {"telha.dev/core/storage/etcd", "/s/core/storage/etcd"}}, false},
		{"look-alike modules are not the authority's", []module{{"telha.dev/core", "/r/core"}, {"telha.dev/core/storage/contrib", "/x/contrib"}}, true},
	}
	for _, tt := range tests {
		ws := &workspace{root: "/r", work: true, modules: tt.modules}
		if err := ws.audit(c); (err == nil) != tt.ok {
			t.Errorf("%s: audit() = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

func TestReadBuilds(t *testing.T) {
	dir := t.TempDir()
	builds, err := readBuilds(dir)
	if err != nil || len(builds) != 1 || builds[0].String() != "default" {
		t.Fatalf("without %s: %v, %v; want the default build alone", buildsFile, builds, err)
	}
	writeFiles(t, dir, map[string]string{buildsFile: "# comment\ntags=integration,slow\n\nGOOS=windows GOARCH=arm64 # a comment\n"})
	builds, err = readBuilds(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range builds {
		got = append(got, b.String())
	}
	if want := []string{"default", "tags=integration,slow", "GOOS=windows GOARCH=arm64"}; !slices.Equal(got, want) {
		t.Errorf("builds = %q, want %q", got, want)
	}
	for _, bad := range []string{"GOPATH=/x\n", "tags\n", "tags=\n"} {
		writeFiles(t, dir, map[string]string{buildsFile: bad})
		if _, err := readBuilds(dir); err == nil || !strings.Contains(err.Error(), buildsFile+":1") {
			t.Errorf("readBuilds(%q) = %v, want an error at %s:1", bad, err, buildsFile)
		}
	}
}

// TestDriver runs telhavet at the root of a workspace with a build
// configuration, a file that no configuration builds, and a testdata
// package that real code imports: ./... must reach every module, the
// configuration and the testdata package must be analyzed, and the run
// must fail naming the file never analyzed.
func TestDriver(t *testing.T) {
	t.Parallel()
	bin := buildTelhavet(t)
	root := t.TempDir()
	printfBug := "\nimport \"fmt\"\n\n// F formats badly.\nfunc F() { fmt.Printf(\"%d\", \"x\") }\n"
	writeFiles(t, root, map[string]string{
		"go.work":                     "go 1.26.0\n\nuse (\n\t./a\n\t./b\n)\n",
		buildsFile:                    "tags=integration\n",
		"a/go.mod":                    "module example.com/a\n\ngo 1.26.0\n",
		"a/a.go":                      "package a\n\nimport _ \"example.com/a/testdata/hidden\"\n",
		"a/tagged.go":                 "//go:build integration\n\npackage a\n" + printfBug,
		"a/never.go":                  "//go:build never\n\npackage a\n",
		"a/testdata/hidden/hidden.go": "package hidden\n" + printfBug,
		"b/go.mod":                    "module example.com/b\n\ngo 1.26.0\n",
		"b/b.go":                      "package b\n" + printfBug,
	})
	code, got, stderr := runWorkspace(t, bin, root)
	if code != 1 || !strings.Contains(stderr, filepath.Join("a", "never.go")+": never analyzed (//go:build never)") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and a/never.go named as never analyzed", code, stderr)
	}
	var want []string
	for _, at := range []string{"a/tagged.go:8", "a/testdata/hidden/hidden.go:6", "b/b.go:6"} {
		want = append(want,
			at+":23: SA5009: Printf format %d has arg #1 of wrong type string",
			at+":24: printf: fmt.Printf format %d has arg \"x\" of wrong type string")
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings differ:\n%s", diffLines(want, got))
	}

	if err := os.Remove(filepath.Join(root, "a", "never.go")); err != nil {
		t.Fatal(err)
	}
	if code, got, stderr := runWorkspace(t, bin, root); code != 3 || !slices.Equal(got, want) {
		t.Errorf("without a/never.go: exit %d, findings %q, stderr:\n%s\nwant exit 3 and the same findings", code, got, stderr)
	}
}

// runWorkspace runs telhavet -json ./... with the extra flags at the root
// of a go.work workspace and returns its exit status, its findings (as
// findingsFromJSON gives them) and its standard error.
func runWorkspace(t *testing.T, bin, root string, flags ...string) (int, []string, string) {
	t.Helper()
	cmd := exec.Command(bin, append(flags, "-json", "./...")...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(root, "go.work"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	code := exitCode(t, cmd.Run())
	return code, findingsFromJSON(t, root, stdout.Bytes()), stderr.String()
}

// TestLikelyPackages checks the guess of the packages that a build of
// telhavet.builds analyzes at the same time as the default build: those
// with files that it compiles and the default build does not.
func TestLikelyPackages(t *testing.T) {
	otherOS := "windows"
	if runtime.GOOS == otherOS {
		otherOS = "linux"
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.work":                            "go 1.26.0\n\nuse ./a\n",
		"a/go.mod":                           "module example.com/a\n\ngo 1.26.0\n",
		"a/a.go":                             "package a\n",
		"a/a_" + otherOS + ".go":             "package a\n",
		"a/os/os.go":                         "//go:build " + otherOS + "\n\npackage os\n",
		"a/tagged/tagged.go":                 "//go:build integration\n\npackage tagged\n",
		"a/tagged/tagged_" + otherOS + ".go": "//go:build integration\n\npackage tagged\n",
		"a/never/never.go":                   "//go:build never\n\npackage never\n",
	})
	ws, files := coverage(t, root)
	for _, tt := range []struct {
		build build
		want  []string
	}{
		{build{}, nil},
		{build{env: []string{"GOOS=" + otherOS}}, []string{"example.com/a", "example.com/a/os"}},
		{build{tags: "integration"}, []string{"example.com/a/tagged"}},
		{build{env: []string{"GOOS=" + otherOS}, tags: "integration"}, []string{"example.com/a", "example.com/a/os", "example.com/a/tagged"}},
	} {
		if got := ws.likelyPackages(tt.build, files); !slices.Equal(got, tt.want) {
			t.Errorf("build %s: %q, want %q", tt.build, got, tt.want)
		}
	}
}

// TestSourceFilesHidden covers the packages under testdata, "_" and "."
// directories that the go command can build (go run ./_tools/dump, go run
// ./.tools/peek), and only those: not those that do not build, nor the
// fixtures of authority.conf, nor .git.
func TestSourceFilesHidden(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.work":                          "go 1.26.0\n\nuse (\n\t./a\n\t./cmd\n)\n",
		"a/go.mod":                         "module example.com/a\n\ngo 1.26.0\n",
		"a/a.go":                           "package a\n",
		"a/_tools/dump/main.go":            "package main\n\nfunc main() {}\n",
		"a/testdata/run/main.go":           "package main\n\nfunc main() {}\n",
		"a/testdata/broken/broken.go":      "package broken\n\nimport \"nonexistent.example/x\"\n\nvar _ = x.Y\n",
		"a/testdata/src/in/in.go":          "this is not Go\n",
		"a/.tools/peek/main.go":            "package main\n\nfunc main() {}\n",
		"a/.git/hooks/x.go":                "package x\n",
		"a/internal/vendor/dump/main.go":   "package main\n\nfunc main() {}\n",
		"a/vendor/modules.txt":             "# example.com/v v1.0.0\n",
		"a/vendor/example.com/v/v.go":      "package v\n",
		"cmd/go.mod":                       "module telha.dev/cmd\n\ngo 1.26.0\n",
		"cmd/telhavet/testdata/bad/bad.go": "package bad\n",
	})
	_, files := coverage(t, root)
	var got []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		got = append(got, filepath.ToSlash(rel))
	}
	if want := []string{"a/.tools/peek/main.go", "a/_tools/dump/main.go", "a/a.go", "a/internal/vendor/dump/main.go", "a/testdata/run/main.go"}; !slices.Equal(got, want) {
		t.Errorf("sourceFiles = %q, want %q", got, want)
	}
}

// TestAsked decides whose findings are reported: an external test package
// counts as the package it tests, however go vet names it ("p_test" or
// "p_test [p.test]"), also at the root of a module, where no pattern
// "p/..." matches "p_test".
func TestAsked(t *testing.T) {
	root := writeWorkspace(t)
	t.Setenv("GOWORK", "")
	ws, err := findWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	at := func(pkg, file string) diagnostic {
		return diagnostic{Package: pkg, file: filepath.Join(root, filepath.FromSlash(file))}
	}
	tests := []struct {
		patterns []string
		d        diagnostic
		want     bool
	}{
		{[]string{"./a/..."}, at("example.com/a_test", "a/x_test.go"), true},
		{[]string{"./a/..."}, at("example.com/a_test [example.com/a.test]", "a/x_test.go"), true},
		{[]string{"./a/..."}, at("example.com/a [example.com/a.test]", "a/x_test.go"), true},
		{[]string{"./a/sub/..."}, at("example.com/a/sub_test", "a/sub/x_test.go"), true},
		{[]string{"./a/sub/..."}, at("example.com/a_test", "a/x_test.go"), false},
		{[]string{"./b/c/..."}, at("example.com/a_test", "a/x_test.go"), false},
		{[]string{"./a"}, at("example.com/a_test", "a/x_test.go"), true},
		{[]string{"./a"}, at("example.com/a/sub", "a/sub/sub.go"), false},
		// A package that merely has a name ending in _test, elsewhere.
		{[]string{"./a"}, at("example.com/a_test", "a_test/x.go"), false},
		{[]string{"./b/c/..."}, at("example.com/a/testdata/x", "a/testdata/x/x.go"), true},
	}
	for _, tt := range tests {
		if got := ws.asked(root, tt.patterns, tt.d); got != tt.want {
			t.Errorf("asked(%q, %s at %s) = %v, want %v", tt.patterns, tt.d.Package, tt.d.file, got, tt.want)
		}
	}
}

// coverage returns the workspace at root, where a go.work is, and the files
// that ./... covers there.
func coverage(t *testing.T, root string) (*workspace, []string) {
	t.Helper()
	t.Setenv("GOWORK", "")
	ws, err := findWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	patterns, err := ws.expandPatterns(root, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	files, err := ws.sourceFiles(root, patterns)
	if err != nil {
		t.Fatal(err)
	}
	return ws, files
}
