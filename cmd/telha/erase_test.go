package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
	"telha.dev/temporal"
)

const cliMarker = "CLI-ERASE-marker-91c2"

// erasureStore makes a RocksDB store with two provisioned tenants, "kept"
// and "gone", whose node names hold cliMarker in gone; it returns the
// directory, closed, and the scopes as TENANT:ORG, and a node of gone.
func erasureStore(t *testing.T) (dir, kept, gone string, node uuid.UUID) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "store")
	e := storagetest.OpenRocksDB(t, dir)
	scopes := storagetest.TenantScopes(t, 2)
	store := temporal.Open(e, temporal.Options{})
	node = uuid.New()
	for i, s := range scopes {
		name := []string{"kept", "gone"}[i]
		if _, err := lifecycle.Provision(e, s, name); err != nil {
			t.Fatal(err)
		}
		for j := range 50 {
			id := uuid.New()
			if j == 0 {
				id = node
			}
			_, err := store.AssertNode(s, temporal.NodeFact{ID: id, Valid: temporal.Interval{Start: 0, End: temporal.Forever},
				Props: temporal.Properties{"name": temporal.String(name + " " + cliMarker)}})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, lifecycle.FormatScope(scopes[0]), lifecycle.FormatScope(scopes[1]), node
}

// hasMarker reports whether any file under dir holds marker.
func hasMarker(t *testing.T, dir, marker string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		found = found || bytes.Contains(b, []byte(marker))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestEraseCommands(t *testing.T) {
	dir, kept, gone, _ := erasureStore(t)
	base := t.TempDir()
	ckpt, ledgerFile, restored := filepath.Join(base, "ckpt"), filepath.Join(base, "ledger"), filepath.Join(base, "restored")

	steps := []struct {
		args       []string
		wantCode   int
		wantStdout string
	}{
		{[]string{"tenant", "verify", "-data", dir, "-scope", gone}, exitError, "node_versions             50 rows"},
		{[]string{"checkpoint", "-data", dir, "-to", ckpt}, exitOK, "checkpoint of"},
		{[]string{"tenant", "erase", "-yes", "-data", dir, "-scope", "gone"}, exitOK, "erased tenant " + gone},
		{[]string{"tenant", "verify", "-data", dir, "-scope", gone}, exitOK, "no row remains"},
		{[]string{"tenant", "verify", "-data", dir, "-scope", kept}, exitError, "kept"},
		{[]string{"ledger", "export", "-data", dir, "-o", ledgerFile}, exitOK, "1 erasures written"},
		{[]string{"restore", "-from", ckpt, "-data", restored, "-ledger", ledgerFile}, exitOK, "1 erasures replayed"},
		{[]string{"tenant", "verify", "-data", restored, "-scope", gone}, exitOK, "no row remains"},
	}
	for _, s := range steps {
		code, stdout, stderr := telha(t, s.args...)
		if code != s.wantCode || !strings.Contains(stdout, s.wantStdout) {
			t.Fatalf("telha %s: exit %d, stdout %q, stderr %q; want exit %d and %q", strings.Join(s.args, " "), code, stdout, stderr, s.wantCode, s.wantStdout)
		}
	}
	for _, d := range []string{dir, restored} {
		if hasMarker(t, d, "gone "+cliMarker) {
			t.Errorf("the erased tenant's marker is in a file of %s", d)
		}
		if !hasMarker(t, d, "kept "+cliMarker) {
			t.Errorf("the kept tenant's rows are missing from %s", d)
		}
	}
}

func TestEntityEraseCommand(t *testing.T) {
	dir, _, gone, node := erasureStore(t)
	code, stdout, stderr := telha(t, "entity", "erase", "-yes", "-data", dir, "-scope", gone, "-id", node.String())
	if code != exitOK || !strings.Contains(stdout, "erased entity "+node.String()) {
		t.Fatalf("entity erase: exit %d, %q, %q", code, stdout, stderr)
	}
	code, _, stderr = telha(t, "entity", "erase", "-yes", "-data", dir, "-scope", gone, "-id", node.String())
	if code != exitUsage || !strings.Contains(stderr, "no such entity") {
		t.Errorf("entity erase again: exit %d, %q", code, stderr)
	}
}

func TestEraseCommandsRefuseBadInput(t *testing.T) {
	dir, _, gone, _ := erasureStore(t)
	missing := filepath.Join(t.TempDir(), "missing")
	tests := []struct {
		args       []string
		wantStderr string
	}{
		{[]string{"tenant"}, "missing subcommand"},
		{[]string{"tenant", "shred"}, `unknown subcommand "shred"`},
		{[]string{"tenant", "erase", "-yes", "-scope", gone}, "missing -data DIR"},
		{[]string{"tenant", "erase", "-yes", "-data", dir}, "missing -scope"},
		{[]string{"tenant", "erase", "-yes", "-data", dir, "-scope", gone, "extra"}, `unexpected argument "extra"`},
		{[]string{"tenant", "erase", "-yes", "-data", missing, "-scope", gone}, "no store at"},
		{[]string{"tenant", "erase", "-yes", "-data", dir, "-scope", "nobody"}, "unknown tenant"},
		{[]string{"tenant", "erase", "-yes", "-data", dir, "-scope", "not-a-uuid:x"}, "bad tenant scope"},
		{[]string{"tenant", "verify", "-data", dir, "-scope", uuid.Nil.String() + ":" + uuid.New().String()}, "bad tenant scope"},
		{[]string{"tenant", "erase", "-yes", "-bogus"}, "flag provided but not defined"},
		{[]string{"entity"}, "want the subcommand erase"},
		{[]string{"entity", "erase", "-yes", "-data", dir, "-scope", gone}, "missing -id"},
		{[]string{"entity", "erase", "-yes", "-data", dir, "-scope", gone, "-id", "x"}, "not a non-nil UUID"},
		{[]string{"entity", "erase", "-yes", "-data", dir, "-scope", gone, "-id", uuid.Nil.String()}, "not a non-nil UUID"},
		{[]string{"checkpoint", "-data", dir}, "-data and -to are both required"},
		{[]string{"checkpoint", "-data", dir, "-to", dir}, "exists"},
		{[]string{"checkpoint", "-data", missing, "-to", filepath.Join(t.TempDir(), "c")}, "no store at"},
		{[]string{"ledger"}, "want the subcommand export"},
		{[]string{"ledger", "export", "-data", dir}, "-data and -o are both required"},
		{[]string{"restore", "-from", dir}, "all required"},
		{[]string{"restore", "-from", dir, "-data", filepath.Join(t.TempDir(), "r"), "-ledger", missing}, "-ledger"},
		{[]string{"restore", "-from", dir, "-data", dir, "-ledger", dir}, "lies inside the checkpoint"},
		{[]string{"restore", "-from", missing, "-data", filepath.Join(t.TempDir(), "r"), "-ledger", dir}, "not a directory"},
	}
	for _, tt := range tests {
		code, _, stderr := telha(t, tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.wantStderr) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("telha %s: exit %d, stderr %q; want exit 2 and one line with %q", strings.Join(tt.args, " "), code, stderr, tt.wantStderr)
		}
	}
	for _, args := range [][]string{{"tenant", "erase", "-yes", "-h"}, {"tenant", "verify", "-h"}, {"entity", "erase", "-yes", "-h"}, {"checkpoint", "-h"}, {"restore", "-h"}, {"ledger", "export", "-h"}} {
		if code, stdout, _ := telha(t, args...); code != exitOK || !strings.Contains(stdout, "usage: telha") {
			t.Errorf("telha %s: exit %d, stdout %q", strings.Join(args, " "), code, stdout)
		}
	}
}
