package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
	"telha.dev/temporal"
)

// The markers of the kill fixture: every row of tenant "gone" names
// tenantMarker, its node entityNode entityMarker, its document the range
// redactMarker. Tenant "kept" holds keptMarker, which must survive. No two
// share four bytes in a row: RocksDB compresses table blocks, and a marker
// that repeats part of another in its block is no longer in the file
// literally.
const (
	tenantMarker = "ZebraQuokka8812"
	entityMarker = "MarmotNarwhal3307"
	redactMarker = "PelicanWombat5521"
	keptMarker   = "OtterIbex9046"
)

// entityNode is the node of "gone" that holds entityMarker.
var entityNode = uuid.MustParse("0190a000-0000-7000-8000-00000000e001")

// killFixture is a closed store with three provisioned tenants: "kept" (a
// document and nodes), "gone" (a document whose middle is redactMarker,
// nodes, one of them entityNode), "empty" (for an import); an export of
// kept, and a checkpoint taken before anything is erased.
type killFixture struct {
	dir, ckpt, export string
	kept, gone        string // TENANT:ORG
	keptDoc, goneDoc  string // blob ids
	redactRange       string // START:END of redactMarker in goneDoc
	newDoc            string // a document file no tenant holds
}

func newKillFixture(t *testing.T) killFixture {
	t.Helper()
	base := t.TempDir()
	f := killFixture{dir: filepath.Join(base, "store"), ckpt: filepath.Join(base, "ckpt"), export: filepath.Join(base, "kept.telha")}
	scopes := storagetest.TenantScopes(t, 3)
	f.kept, f.gone = lifecycle.FormatScope(scopes[0]), lifecycle.FormatScope(scopes[1])
	for i, name := range []string{"kept", "gone", "empty"} {
		mustTelha(t, "tenant", "provision", "-data", f.dir, "-scope", lifecycle.FormatScope(scopes[i]), "-name", name)
	}
	goneText := "Minutes of the board. " + redactMarker + " " + tenantMarker + " — adjourned.\n"
	start := strings.Index(goneText, redactMarker)
	f.redactRange = strconv.Itoa(start) + ":" + strconv.Itoa(start+len(redactMarker))
	f.keptDoc = strings.TrimSpace(mustTelha(t, "source", "put", "-data", f.dir, "-scope", "kept", writeDoc(t, base, "kept.txt", "Kept minutes: "+keptMarker+".\n")))
	f.goneDoc = strings.TrimSpace(mustTelha(t, "source", "put", "-data", f.dir, "-scope", "gone", writeDoc(t, base, "gone.txt", goneText)))
	f.newDoc = writeDoc(t, base, "new.txt", "A new document for kept.\n")

	e := storagetest.OpenRocksDB(t, f.dir)
	store := temporal.Open(e, temporal.Options{})
	for i, s := range scopes[:2] {
		for j := range 20 {
			id, name := uuid.New(), []string{keptMarker, tenantMarker}[i]
			if i == 1 && j == 0 {
				id, name = entityNode, entityMarker
			}
			_, err := store.AssertNode(s, temporal.NodeFact{ID: id, Valid: temporal.Interval{Start: 0, End: temporal.Forever},
				Props: temporal.Properties{"name": temporal.String(name)}})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	mustTelha(t, "tenant", "export", "-data", f.dir, "-scope", "kept", "-o", f.export)
	mustTelha(t, "checkpoint", "-data", f.dir, "-to", f.ckpt)
	for _, m := range []string{tenantMarker, entityMarker, redactMarker, keptMarker} {
		if !hasMarker(t, f.dir, m) {
			t.Fatalf("%s is in no file of the fixture: the test proves nothing", m)
		}
	}
	return f
}

func writeDoc(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	mustWrite(t, p, text)
	return p
}

// killOp is an erasure or redaction the test kills at each progress line.
type killOp struct {
	name   string
	args   func(f killFixture, data string) []string
	marker string // what the operation takes out of the store
}

var killOps = []killOp{
	{"tenant erase", func(f killFixture, d string) []string {
		return []string{"tenant", "erase", "-yes", "-data", d, "-scope", "gone"}
	}, tenantMarker},
	{"entity erase", func(f killFixture, d string) []string {
		return []string{"entity", "erase", "-yes", "-data", d, "-scope", "gone", "-id", entityNode.String()}
	}, entityMarker},
	{"source redact", func(f killFixture, d string) []string {
		return []string{"source", "redact", "-yes", "-data", d, "-scope", "gone", "-id", f.goneDoc, "-range", f.redactRange}
	}, redactMarker},
	{"source delete", func(f killFixture, d string) []string {
		return []string{"source", "delete", "-yes", "-data", d, "-scope", "gone", "-id", f.goneDoc}
	}, redactMarker},
}

// nextCommand is a command run on a store after the kill. out names the
// directory or file it writes besides the store, if any ("" for none).
type nextCommand struct {
	name string
	args func(f killFixture, data, out string) []string
	// codes are the exit statuses it may end with; verify counts rows.
	codes []int
}

var nextCommands = []nextCommand{
	{"tenant provision", func(f killFixture, d, _ string) []string {
		return []string{"tenant", "provision", "-data", d, "-scope", lifecycle.FormatScope(mustScope()), "-name", "later"}
	}, []int{exitOK}},
	{"tenant list", func(f killFixture, d, _ string) []string { return []string{"tenant", "list", "-data", d} }, []int{exitOK}},
	{"tenant export", func(f killFixture, d, o string) []string {
		return []string{"tenant", "export", "-data", d, "-scope", "kept", "-o", o}
	}, []int{exitOK}},
	{"tenant import", func(f killFixture, d, _ string) []string {
		return []string{"tenant", "import", "-data", d, "-scope", "empty", f.export}
	}, []int{exitOK}},
	{"tenant verify", func(f killFixture, d, _ string) []string {
		return []string{"tenant", "verify", "-data", d, "-scope", f.gone}
	}, []int{exitOK, exitError}},
	{"tenant erase", func(f killFixture, d, _ string) []string {
		return []string{"tenant", "erase", "-yes", "-data", d, "-scope", "empty"}
	}, []int{exitOK}},
	{"entity erase", func(f killFixture, d, _ string) []string {
		return []string{"entity", "erase", "-yes", "-data", d, "-scope", "kept", "-id", uuid.NewString()}
	}, []int{exitUsage}}, // no such entity: refused, after the store was resumed
	{"source put", func(f killFixture, d, _ string) []string {
		return []string{"source", "put", "-data", d, "-scope", "kept", f.newDoc}
	}, []int{exitOK}},
	{"source get", func(f killFixture, d, _ string) []string {
		return []string{"source", "get", "-data", d, "-scope", "kept", "-id", f.keptDoc}
	}, []int{exitOK}},
	{"source facts", func(f killFixture, d, _ string) []string {
		return []string{"source", "facts", "-data", d, "-scope", "kept", "-id", f.keptDoc}
	}, []int{exitOK}},
	{"source redact", func(f killFixture, d, _ string) []string {
		return []string{"source", "redact", "-yes", "-data", d, "-scope", "kept", "-id", f.keptDoc, "-range", "0:5"}
	}, []int{exitOK}},
	{"source delete", func(f killFixture, d, _ string) []string {
		return []string{"source", "delete", "-yes", "-data", d, "-scope", "kept", "-id", f.keptDoc}
	}, []int{exitOK}},
	{"checkpoint", func(f killFixture, d, o string) []string { return []string{"checkpoint", "-data", d, "-to", o} }, []int{exitOK}},
	{"ledger export", func(f killFixture, d, o string) []string { return []string{"ledger", "export", "-data", d, "-o", o} }, []int{exitOK}},
	{"repair", func(f killFixture, d, _ string) []string { return []string{"repair", "-data", d} }, []int{exitOK}},
	{"demo", func(f killFixture, d, _ string) []string { return []string{"demo", "-data", d, "-force"} }, []int{exitOK}},
	{"restore", func(f killFixture, d, o string) []string {
		return []string{"restore", "-from", f.ckpt, "-data", o, "-ledger", d}
	}, []int{exitOK, exitUsage}}, // refused while the killed store holds interrupted work
}

func mustScope() storage.TenantScope {
	s, err := storage.NewTenantScope(uuid.New(), uuid.New())
	if err != nil {
		panic(err)
	}
	return s
}

// TestKilledEraseFinishedByEveryCommand kills each erasure and redaction
// command with SIGKILL right after each of its progress lines, in a real
// child process, then runs every command of the CLI that opens a store as
// the next one, on a copy of the killed store. Whatever that command is,
// a read included, it finishes the interrupted operation first: once it
// has run, either the operation is absent (killed before its commit: no
// ledger entry, and its target still there) or its ledger entry is
// verified and its marker is in no file of the store, nor of what the
// command wrote (a checkpoint, a restored store), nor in its output. No
// tenant is left erasing or importing. The restore reads the killed store
// read-only: the store is unchanged, and the restored one holds no marker.
func TestKilledEraseFinishedByEveryCommand(t *testing.T) {
	f := newKillFixture(t)
	for _, op := range killOps {
		t.Run(op.name, func(t *testing.T) {
			for line := 1; ; line++ {
				killed := filepath.Join(t.TempDir(), "killed")
				copyDir(t, f.dir, killed)
				lines, ok := killAfterLine(t, line, op.args(f, killed)...)
				if !ok {
					if line == 1 {
						t.Fatalf("%s printed no progress line: %q", op.name, lines)
					}
					return
				}
				last := lines[line-1]
				t.Run(fmt.Sprintf("line %d %s", line, last[strings.LastIndex(last, ": ")+2:]), func(t *testing.T) {
					t.Parallel()
					for _, next := range nextCommands {
						checkNextCommand(t, f, op, killed, next)
					}
				})
			}
		})
	}
}

// checkNextCommand runs next on a copy of the store killed during op and
// checks what TestKilledEraseFinishedByEveryCommand says.
func checkNextCommand(t *testing.T, f killFixture, op killOp, killed string, next nextCommand) {
	t.Helper()
	data := filepath.Join(t.TempDir(), "data")
	copyDir(t, killed, data)
	out := filepath.Join(t.TempDir(), "out")
	before := storagetest.HashFiles(t, data)
	code, stdout, stderr := telha(t, next.args(f, data, out)...)
	if !containsInt(next.codes, code) {
		t.Errorf("%s after %s: exit %d, stderr %q; want %v", next.name, op.name, code, stderr, next.codes)
	}
	if strings.Contains(stdout, op.marker) {
		t.Errorf("%s after %s printed the marker", next.name, op.name)
	}
	if next.name == "restore" {
		before.Unchanged(t, "restore, reading its ledger,", data)
		switch {
		case code == exitUsage && !strings.Contains(stderr, "interrupted"):
			t.Errorf("restore refused the killed store's ledger for another reason: %q", stderr)
		case code == exitUsage && markerIn(t, out, op.marker):
			t.Errorf("the refused restore made a store")
		case code == exitOK && markerIn(t, out, op.marker) && recordedIn(t, data, f.gone):
			t.Errorf("the store restored with the killed store's ledger holds %s's marker", op.name)
		}
		return
	}
	e, err := rocksdb.Open(rocksdb.Config{Path: data, ReadOnly: true})
	if err != nil {
		t.Fatalf("%s after %s: the store does not open: %v", next.name, op.name, err)
	}
	defer e.Close()
	entries, err := lifecycle.LedgerEntries(e)
	if err != nil {
		t.Fatal(err)
	}
	recorded := false
	for _, en := range entries {
		if en.Verified.IsZero() {
			t.Errorf("%s after %s: ledger entry %s of %s %s is not verified", next.name, op.name, en.ID, en.Kind, en.Scope)
		}
		recorded = recorded || lifecycle.FormatScope(en.Scope) == f.gone
	}
	all, err := lifecycle.List(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, tn := range all {
		if tn.State == lifecycle.Erasing || tn.State == lifecycle.Importing {
			t.Errorf("%s after %s: tenant %s is left %s", next.name, op.name, tn.Name, tn.State)
		}
	}
	switch {
	case recorded:
		for _, dir := range []string{data, out} {
			if markerIn(t, dir, op.marker) {
				t.Errorf("%s after %s: the marker is in a file of %s", next.name, op.name, dir)
			}
		}
	case !hasMarker(t, data, op.marker):
		t.Errorf("%s after %s: no ledger entry, but the marker is gone: the operation was neither absent nor recorded", next.name, op.name)
	}
	if !hasMarker(t, data, keptMarker) {
		t.Errorf("%s after %s: the kept tenant's rows are gone", next.name, op.name)
	}
}

// recordedIn reports whether the ledger of the store at dir, read
// read-only, holds an entry of tenant scope.
func recordedIn(t *testing.T, dir, scope string) bool {
	t.Helper()
	e, err := rocksdb.Open(rocksdb.Config{Path: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	entries, err := lifecycle.LedgerEntries(e)
	if err != nil {
		t.Fatal(err)
	}
	for _, en := range entries {
		if lifecycle.FormatScope(en.Scope) == scope {
			return true
		}
	}
	return false
}

// markerIn reports whether the file or directory at path holds marker;
// a missing path holds nothing.
func markerIn(t *testing.T, path, marker string) bool {
	t.Helper()
	if _, err := os.Lstat(path); err != nil {
		return false
	}
	return hasMarker(t, path, marker)
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// copyDir copies the directory src to dst, which must not exist.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}
