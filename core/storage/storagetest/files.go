package storagetest

import (
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Files are the bytes of a directory tree: the SHA-256 of every regular
// file, by path relative to the tree's root, and an entry for every
// directory (with a "/" after its path) and every other kind of file (with
// its mode), so that a file changed, created or removed, of any kind,
// shows. A test takes them before and after a command that must not
// change a tree (a checkpoint, a store read read-only) and compares them
// with Diff.
type Files map[string][32]byte

// HashFiles returns the Files of the tree at dir.
func HashFiles(t testing.TB, dir string) Files {
	t.Helper()
	files := make(Files)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			files[rel+"/"] = [32]byte{}
			return nil
		case !d.Type().IsRegular():
			files[rel+" "+d.Type().String()] = [32]byte{}
			return nil
		}
		b, err := os.ReadFile(p)
		files[rel] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatalf("hash the files of %s: %v", dir, err)
	}
	return files
}

// Diff describes how after differs from f: each path changed, created or
// removed, sorted; "" if they are the same.
func (f Files) Diff(after Files) string {
	var out []string
	for p, sum := range f {
		if now, ok := after[p]; !ok {
			out = append(out, "removed "+p)
		} else if now != sum {
			out = append(out, "changed "+p)
		}
	}
	for p := range after {
		if _, ok := f[p]; !ok {
			out = append(out, "created "+p)
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// Unchanged fails t unless the tree at dir has the files f, naming what
// changed.
func (f Files) Unchanged(t testing.TB, what, dir string) {
	t.Helper()
	if diff := f.Diff(HashFiles(t, dir)); diff != "" {
		t.Errorf("%s changed %s: %s", what, dir, diff)
	}
}
