package authority_test

import (
	"flag"
	"testing"

	"telha.dev/analyzers/internal/authority"
)

func TestContains(t *testing.T) {
	tree := authority.Paths{authority.DefaultTree}
	for path, want := range map[string]bool{
		"telha.dev/core/storage":              true,
		"telha.dev/core/storage/rocksdb":      true,
		"telha.dev/core/storage_test":         true,
		"telha.dev/core/storage/rocksdb_test": true,
		"telha.dev/core/storagex":             false,
		"telha.dev/core":                      false,
		"telha.dev/graph/storage":             false,
	} {
		if got := tree.Contains(path); got != want {
			t.Errorf("Contains(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestTreeFlag(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	tree := authority.TreeFlag(fs)
	if err := fs.Parse([]string{"-authority=example.com/a, example.com/b"}); err != nil {
		t.Fatal(err)
	}
	if !tree.Contains("example.com/b/c") || tree.Contains(authority.DefaultTree) {
		t.Errorf("tree = %v after -authority", *tree)
	}
	if err := fs.Set("authority", "example.com/a,"); err == nil {
		t.Error("an empty path was accepted")
	}
}
