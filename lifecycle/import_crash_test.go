package lifecycle

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/tenants"
)

// importChildEnv carries "store dir|export file" to the child process of
// TestImportSurvivesKill.
const importChildEnv = "TELHA_LIFECYCLE_IMPORT_CHILD"

// killingReader reads an export and kills the process with SIGKILL once
// more than at bytes were read in all: past the first pass and half of the
// second, the import has written batches of rows.
type killingReader struct {
	io.ReadSeeker
	read, at int64
}

func (k *killingReader) Read(p []byte) (int, error) {
	n, err := k.ReadSeeker.Read(p)
	if k.read += int64(n); k.read > k.at {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return n, err
}

// TestImportCrashChild is the child's body: it imports the export into
// scopeN(1) of the store and is killed half way through the second pass.
// It runs only when re-executed by TestImportSurvivesKill.
func TestImportCrashChild(t *testing.T) {
	spec, ok := os.LookupEnv(importChildEnv)
	if !ok {
		t.Skip("runs only as the child process of TestImportSurvivesKill")
	}
	dir, file, _ := strings.Cut(spec, "|")
	data, err := os.ReadFile(file)
	mustDo(t, err)
	e := storagetest.OpenRocksDB(t, dir)
	r := &killingReader{ReadSeeker: bytes.NewReader(data), at: int64(len(data)) * 3 / 2}
	_, err = Import(e, scopeN(t, 1), r, Options{})
	t.Fatalf("the import returned (%v) instead of being killed", err)
}

// TestImportSurvivesKill kills an import with SIGKILL half way through its
// second pass: the tenant is left importing, with rows. Resume (which
// every telha command runs first) wipes them and marks the tenant active
// and empty; the import then runs again and the store holds the export
// byte for byte.
func TestImportSurvivesKill(t *testing.T) {
	src := storagetest.OpenRocksDB(t, filepath.Join(t.TempDir(), "src"))
	scope := scopeN(t, 1)
	provision(t, src, scope, "acme")
	fill(t, src, scope, 3000, 40)
	file := export(t, src, scope)
	exportFile := filepath.Join(t.TempDir(), "acme.telha")
	mustDo(t, os.WriteFile(exportFile, file, 0o600))

	dir := filepath.Join(t.TempDir(), "dst")
	e := storagetest.OpenRocksDB(t, dir)
	provision(t, e, scope, "acme")
	mustDo(t, e.Close())

	cmd := exec.Command(os.Args[0], "-test.run=^TestImportCrashChild$", "-test.v")
	cmd.Env = append(os.Environ(), importChildEnv+"="+dir+"|"+exportFile)
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, out)
	}

	e = storagetest.OpenRocksDB(t, dir)
	if tn, err := tenants.Get(e, scope); err != nil || tn.State != tenants.Importing {
		t.Fatalf("after the kill the tenant is %+v, %v; want importing", tn, err)
	}
	counts, err := Verify(e, scope)
	mustDo(t, err)
	if countOf(counts) == 0 {
		t.Fatal("the killed import wrote no row: the test proves nothing")
	}
	if _, err := Import(e, scope, bytes.NewReader(file), Options{}); !errors.Is(err, ErrNotActive) {
		t.Errorf("an import into the importing tenant before Resume = %v, want ErrNotActive", err)
	}
	_, err = Resume(e, EraseOptions{})
	mustDo(t, err)
	if tn, err := tenants.Get(e, scope); err != nil || tn.State != tenants.Active || tn.Name != "acme" {
		t.Errorf("after Resume the tenant is %+v, %v; want active acme", tn, err)
	}
	if counts, err := Verify(e, scope); err != nil || countOf(counts) != 0 {
		t.Errorf("after Resume the tenant holds %d rows (%v), want none", countOf(counts), err)
	}
	_, err = Import(e, scope, bytes.NewReader(file), Options{})
	mustDo(t, err)
	if again := export(t, e, scope); !bytes.Equal(again, file) {
		t.Errorf("the export after the second import differs: %d bytes, %d", len(again), len(file))
	}
}
