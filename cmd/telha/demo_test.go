package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{"foreign directory", []string{"demo", "-data", foreign}, "unusable data directory"},
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
