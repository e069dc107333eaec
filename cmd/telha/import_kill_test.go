package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
)

// TestKilledImportImportsAgain kills `telha tenant import` with SIGKILL
// after each of its progress lines (the first pass, which writes nothing,
// and the second, which writes), in a real child process. Whatever the
// point, the next command on the store wipes what the import wrote: the
// tenant is listed active, verifies empty, and the import run again
// succeeds, after which the tenant exports to the same file byte for
// byte. This is the README's recipe: run the import again.
func TestKilledImportImportsAgain(t *testing.T) {
	base := t.TempDir()
	src, export := filepath.Join(base, "src"), filepath.Join(base, "acme.telha")
	scope := storagetest.TenantScope(t)
	mustTelha(t, "tenant", "provision", "-data", src, "-scope", lifecycle.FormatScope(scope), "-name", "acme")
	e := storagetest.OpenRocksDB(t, src)
	for i := 0; i < 40000; i += 500 {
		var b storage.Batch
		for j := i; j < i+500; j++ {
			b.Put(storage.NodeVersionKey(scope, uuid.New(), storage.Timestamp(j), storage.Timestamp(j)), bytes.Repeat([]byte{byte(j)}, 64))
		}
		if err := e.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	mustTelha(t, "tenant", "export", "-data", src, "-scope", "acme", "-o", export)
	want, err := os.ReadFile(export)
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(base, "target")
	mustTelha(t, "tenant", "provision", "-data", target, "-scope", lifecycle.FormatScope(scope), "-name", "acme")

	importing := 0
	for line := 1; ; line++ {
		data := filepath.Join(t.TempDir(), "data")
		copyDir(t, target, data)
		lines, killed := killAfterLine(t, line, "tenant", "import", "-data", data, "-scope", "acme", export)
		if !killed {
			break
		}
		last := lines[line-1]
		if strings.Contains(last, "tenant import:") {
			// Killed in the second pass: the store holds rows of the
			// tenant, which the registry marks importing.
			if rows, state := importState(t, data, scope); rows == 0 || state != lifecycle.Importing {
				t.Errorf("killed after %q: %d rows, tenant %s; want rows of a tenant importing", last, rows, state)
			}
			importing++
		}
		t.Run(fmt.Sprintf("line %d %s", line, last), func(t *testing.T) {
			if out := mustTelha(t, "tenant", "list", "-data", data); !strings.Contains(out, "acme  active") {
				t.Errorf("after the kill, tenant list says:\n%s", out)
			}
			if out := mustTelha(t, "tenant", "verify", "-data", data, "-scope", "acme"); !strings.Contains(out, "no row remains") {
				t.Errorf("after the kill, the tenant is not empty:\n%s", out)
			}
			mustTelha(t, "tenant", "import", "-data", data, "-scope", "acme", export)
			again := filepath.Join(t.TempDir(), "again.telha")
			mustTelha(t, "tenant", "export", "-data", data, "-scope", "acme", "-o", again)
			if got, err := os.ReadFile(again); err != nil || !bytes.Equal(got, want) {
				t.Errorf("the export after importing again differs: %d bytes, want %d (%v)", len(got), len(want), err)
			}
		})
	}
	if importing == 0 {
		t.Fatal("no progress line of the second pass: no kill landed among its writes, the test proves little")
	}
}

// importState reads the store at dir read-only and returns the rows of
// scope and its registry state.
func importState(t *testing.T, dir string, scope storage.TenantScope) (uint64, lifecycle.State) {
	t.Helper()
	e, err := rocksdb.Open(rocksdb.Config{Path: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	counts, err := lifecycle.Verify(e, scope)
	if err != nil {
		t.Fatal(err)
	}
	var rows uint64
	for _, c := range counts {
		rows += c.Rows
	}
	tn, err := lifecycle.Get(e, scope)
	if err != nil {
		t.Fatal(err)
	}
	return rows, tn.State
}
