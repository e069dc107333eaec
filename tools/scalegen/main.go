// Command scalegen writes a synthetic workspace for measuring how the
// telhavet gate scales: N subsystem packages that use the key authority
// through its public API, as the real subsystems do, each importing one
// earlier package (so that a change to one has importers), with a test
// file each, and a violation in every twenty-fifth package (-every; so
// that the gate has findings to report and exits 3).
//
// The workspace's go.work uses the generated module and this repository's
// core module, by absolute path:
//
//	cd tools/scalegen && GOWORK=off go run . -n 200 -o /tmp/scale200
//	cd /tmp/scale200 && telhavet ./...
//
// tools/scalegen/bench.sh measures telhavet, go vet -vettool and the
// custom golangci-lint on such workspaces.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("scalegen: ")
	n := flag.Int("n", 50, "number of packages")
	every := flag.Int("every", 25, "every how many packages one breaks a Telha rule")
	out := flag.String("o", "", "directory to write the workspace to (must not exist)")
	core := flag.String("core", "", "directory of the telha.dev/core module (default: ../../core from here)")
	flag.Parse()
	if *out == "" || *n < 1 || *every < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if *core == "" {
		*core = filepath.Join("..", "..", "core")
	}
	coreDir, err := filepath.Abs(*core)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(coreDir, "go.mod")); err != nil {
		log.Fatalf("no telha.dev/core module at %s: %v", coreDir, err)
	}
	if err := generate(*out, coreDir, *n, *every); err != nil {
		log.Fatal(err)
	}
}

// generate writes the workspace of n packages to dir, one in every
// every breaking a Telha rule.
func generate(dir, coreDir string, n, every int) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists", dir)
	}
	files := map[string]string{
		"go.work":      fmt.Sprintf("go 1.26.0\n\nuse (\n\t./scale\n\t%s\n)\n", coreDir),
		"scale/go.mod": "module telha.dev/scale\n\ngo 1.26.0\n",
		"scale/doc.go": "// Package scale is a synthetic workspace written by scalegen.\npackage scale\n",
	}
	for i := range n {
		p := pkg{Name: name(i), Index: i, Violates: violates(i, every)}
		if i > 0 {
			p.Dep = name(i / 2)
		}
		for file, tmpl := range map[string]*template.Template{".go": source, "_test.go": test} {
			var b strings.Builder
			if err := tmpl.Execute(&b, p); err != nil {
				return err
			}
			files[filepath.Join("scale", p.Name, p.Name+file)] = b.String()
		}
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// pkg is one generated package.
type pkg struct {
	Name     string
	Index    int
	Dep      string // the earlier package it imports, "" for the first
	Violates bool   // it reaches the system scope
}

// name is the name of the package i, which imports the package i/2.
func name(i int) string { return fmt.Sprintf("p%04d", i) }

// violates reports whether the package i breaks a Telha rule: the last
// of every run of every packages.
func violates(i, every int) bool { return i%every == every-1 }

var source = template.Must(template.New("source").Parse(`// Package {{.Name}} is a synthetic subsystem: it stores and reads node
// versions of one tenant through the key authority's public API.
package {{.Name}}

import (
	"errors"
	"fmt"

	"telha.dev/core/storage"{{if .Dep}}

	"telha.dev/scale/{{.Dep}}"{{end}}
)

// ErrEmpty is returned for a node without versions.
var ErrEmpty = errors.New("{{.Name}}: no versions")

// Store keeps node versions of one tenant.
type Store struct {
	engine storage.Engine
	scope  storage.TenantScope
}

// New returns the store of one tenant within one organization.
func New(e storage.Engine, tenant, organization [16]byte) (*Store, error) {
	s, err := storage.NewTenantScope(tenant, organization)
	if err != nil {
		return nil, fmt.Errorf("{{.Name}}: %w", err)
	}
	return &Store{engine: e, scope: s}, nil
}

// Put stores one version of a node, valid and recorded at the same time.
func (st *Store) Put(node [16]byte, at storage.Timestamp, value []byte) error {
	if err := st.engine.Put(storage.NodeVersionKey(st.scope, node, at, at), value); err != nil {
		return fmt.Errorf("{{.Name}}: put %x: %w", node, err)
	}
	return nil
}

// History returns every version of a node, latest first.
func (st *Store) History(node [16]byte) ([][]byte, error) {
	var values [][]byte
	for kv, err := range st.engine.Scan(storage.NodeHistory(st.scope, node)) {
		if err != nil {
			return nil, fmt.Errorf("{{.Name}}: history of %x: %w", node, err)
		}
		values = append(values, kv.Value)
	}
	if len(values) == 0 {
		return nil, ErrEmpty
	}
	return values, nil
}

// Latest returns the latest version of a node.
func (st *Store) Latest(node [16]byte) ([]byte, error) {
	values, err := st.History(node)
	if err != nil {
		return nil, err
	}
	return values[0], nil
}

// Delete removes every version of a node.
func (st *Store) Delete(node [16]byte) error {
	if err := st.engine.DeleteRange(storage.NodeHistory(st.scope, node)); err != nil {
		return fmt.Errorf("{{.Name}}: delete %x: %w", node, err)
	}
	return nil
}

// Count counts the versions of the nodes.
func (st *Store) Count(nodes ...[16]byte) (int, error) {
	n := 0
	for _, node := range nodes {
		values, err := st.History(node)
		if errors.Is(err, ErrEmpty) {
			continue
		}
		if err != nil {
			return 0, err
		}
		n += len(values)
	}
	return n, nil
}

// Weight is a number that depends on the packages below this one.
func Weight() int {
	return {{.Index}}{{if .Dep}} + {{.Dep}}.Weight()%7{{end}}
}
{{if .Violates}}
// Sweep scans every tenant's nodes: a violation the gate reports.
func Sweep(e storage.Engine) int {
	n := 0
	for range e.Scan(storage.SystemScope{}.FullFamily(storage.NodeVersions)) {
		n++
	}
	return n
}
{{end}}`))

var test = template.Must(template.New("test").Parse(`package {{.Name}}

import (
	"testing"

	"telha.dev/core/storage"
)

func TestRoundTrip(t *testing.T) {
	st, err := New(storage.NewMemoryEngine(), [16]byte{1}, [16]byte{2})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put([16]byte{3}, 10, []byte("v")); err != nil {
		t.Fatal(err)
	}
	if v, err := st.Latest([16]byte{3}); err != nil || string(v) != "v" {
		t.Fatalf("Latest = %q, %v", v, err)
	}
	if Weight() < 0 {
		t.Fatal("negative weight")
	}
}
`))
