package server

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedCodeIsCurrent regenerates gen/ from proto/ (generate.sh,
// protoc with the pinned plugins) into a temporary directory and compares
// it, file by file, with what is committed: a .proto edited without make
// proto, or generated code edited by hand, fails here.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("./generate.sh", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generate.sh: %v\n%s", err, b)
	}
	got, want := readTree(t, out), readTree(t, "gen")
	for name, b := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("gen/%s is not generated from proto/ any more (run make proto)", name)
		} else if !bytes.Equal(g, b) {
			t.Errorf("gen/%s differs from what proto/ generates (run make proto)", name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("gen/%s is generated but not committed (run make proto)", name)
		}
	}
}

// readTree returns the files under dir by their slash path below it.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
