package durable_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"telha.dev/core/durable"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "layout")
	for _, data := range []string{"first\n", "second, longer\n"} {
		if err := durable.WriteFile(path, []byte(data), 0o640); err != nil {
			t.Fatalf("WriteFile: %v", err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("after WriteFile(%q): read %q, %v", data, got, err)
		}
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o640 {
		t.Fatalf("mode: %v, %v; want 0640", info.Mode(), err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("the directory holds %v (%v); want the file alone, no temporary file", entries, err)
	}
}

func TestWriteLeavesPathOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest")
	if err := durable.WriteFile(path, []byte("whole\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := durable.Write(path, 0o644, func(w io.Writer) error {
		_, _ = w.Write([]byte("torn"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write returned %v; want fill's error", err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "whole\n" {
		t.Fatalf("after a failed Write: %q, %v; want the old content", got, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("a failed Write left %v", entries)
	}
}

func TestCreateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mark")
	if err := durable.CreateFile(path, []byte("mark\n"), 0o444); err != nil {
		t.Fatalf("CreateFile: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "mark\n" {
		t.Fatalf("read %q, %v", got, err)
	}
	if err := durable.CreateFile(path, []byte("again\n"), 0o444); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("CreateFile over an existing file: %v; want fs.ErrExist", err)
	}
	if err := durable.Sync(filepath.Join(t.TempDir(), "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Sync of a missing path: %v; want fs.ErrNotExist", err)
	}
}
