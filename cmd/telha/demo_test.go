package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
)

// TestDemoTwice runs the demo twice on one store: the first run creates it,
// the second resets the demo tenants and must show the same answers.
func TestDemoTwice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	want := []string{
		"valid 2024-07-01, as known now:              city=Porto",
		"valid 2024-07-01, as known before the fix:   city=Lisbon",
		"valid 2024-03-01, as known now:              city=Lisbon",
		"reached: bob@1, carol@2",
		"acme     alice.tenant=acme     city=Porto   two hops: bob@1, carol@2",
		"globex   alice.tenant=globex   city=Lisbon  two hops: dave@1, bob@1, carol@2",
		"initech  alice.tenant=initech  city=Lisbon  two hops: bob@1, carol@2",
		"bitmap: Person.city = Lisbon -> carol",
		"2 nearest, everyone:       alice (0.0012), bob (0.0018)",
		"2 nearest, city = Lisbon:  carol (0.2585)",
		"job is completed after 1 attempt(s)",
		`globex   notes now read "Staff notes of globex: ; bob knows carol.\n"`,
		"globex   ingesting the original notes again is refused: blocklisted",
		`acme     notes still read "Staff notes of acme: alice knows bob; bob knows carol.\n"`,
	}
	for i, first := range []string{"created a new store at " + dir, "reusing the store at " + dir + ": resetting the three demo tenants"} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"demo", "-data", dir}, &stdout, &stderr); code != exitOK {
			t.Fatalf("run %d: exit code %d, stderr %q", i+1, code, stderr.String())
		}
		out := stdout.String()
		if !strings.HasPrefix(out, first+"\n") {
			t.Errorf("run %d: output starts %q, want %q", i+1, strings.SplitN(out, "\n", 2)[0], first)
		}
		for _, line := range want {
			if !strings.Contains(out, line+"\n") {
				t.Errorf("run %d: output lacks line %q:\n%s", i+1, line, out)
			}
		}
		if got := strings.Count(out, "(open)"); got != 2 {
			t.Errorf("run %d: history shows %d open versions, want 2:\n%s", i+1, got, out)
		}
	}
}

func TestDemoErrors(t *testing.T) {
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("not a store"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"unknown flag", []string{"demo", "-x"}, "flag provided but not defined: -x"},
		{"extra argument", []string{"demo", "extra"}, `unexpected argument "extra"`},
		{"missing flag value", []string{"demo", "-data"}, "flag needs an argument"},
		{"foreign directory", []string{"demo", "-data", foreign}, "holds data the demo did not create; pass -force"},
		{"foreign directory, forced", []string{"demo", "-force", "-data", foreign}, "unusable data directory"},
		{"file, not a directory", []string{"demo", "-data", file}, "unusable data directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code != exitUsage {
				t.Errorf("exit code %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q: want one line containing %q", stderr.String(), tt.wantStderr)
			}
		})
	}
	if entries, _ := os.ReadDir(foreign); len(entries) != 1 {
		t.Errorf("the demo wrote into a foreign directory: %d entries", len(entries))
	}
}

// TestDemoRefusesForeignStore: the demo wipes its tenants on every run, so
// it refuses a Telha store it did not create, without writing to it,
// unless told -force; even then it wipes only its own tenants.
func TestDemoRefusesForeignStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	e := storagetest.OpenRocksDB(t, dir)
	theirs := storagetest.TenantScope(t)
	// A row of someone else's tenant, and one in a demo tenant's scope.
	demoScope, err := storage.NewTenantScope(demoTenants[0].id, demoOrg)
	if err != nil {
		t.Fatal(err)
	}
	keep, lose := storage.TraceKey(theirs, uuid.New()), storage.TraceKey(demoScope, uuid.New())
	for _, k := range []storage.Key{keep, lose} {
		if err := e.Put(k, []byte("data")); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	before := listing(t, dir)

	var stdout, stderr bytes.Buffer
	if code := run([]string{"demo", "-data", dir}, &stdout, &stderr); code != exitUsage {
		t.Fatalf("demo on a foreign store: exit %d, stderr %q", code, stderr.String())
	}
	if msg := stderr.String(); !strings.Contains(msg, "did not create") || !strings.Contains(msg, "-force") || strings.Count(msg, "\n") != 1 {
		t.Errorf("stderr %q: want one line naming -force", msg)
	}
	if after := listing(t, dir); !slices.Equal(before, after) {
		t.Fatalf("the refused demo touched the store: %v, then %v", before, after)
	}

	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"demo", "-force", "-data", dir}, &stdout, &stderr); code != exitOK {
		t.Fatalf("demo -force: exit %d, stderr %q", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "using the store at "+dir+", which the demo did not create (-force)") {
		t.Errorf("demo -force says %q", strings.SplitN(stdout.String(), "\n", 2)[0])
	}
	if _, err := os.Stat(filepath.Join(dir, demoMarker)); err == nil {
		t.Error("demo -force marked a store it did not create as its own")
	}
	if e, err = rocksdb.Open(rocksdb.Config{Path: dir}); err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if v, err := e.Get(keep); err != nil || string(v) != "data" {
		t.Errorf("the other tenant's row after demo -force: %q, %v", v, err)
	}
	if _, err := e.Get(lose); err == nil {
		t.Error("demo -force did not wipe its own tenant")
	}
}

// listing returns the names and sizes of the files in dir.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, en := range entries {
		info, err := en.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %s", en.Name(), info.Size(), info.ModTime()))
	}
	return out
}
