package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClusterAlreadyRunning: telha cluster on a directory another holds
// (here this process, through a lock of its own) is refused in one line
// that names the holder's process id, and starts no member.
func TestClusterAlreadyRunning(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	unlock, err := lockClusterDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := telha(t, "cluster", "-data", dir)
	want := fmt.Sprintf("already running (pid %d)", os.Getpid())
	if code != exitError || out != "" || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("a second telha cluster: exit %d, stdout %q, stderr %q; want exit 1 and one line with %q", code, out, errOut, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the refused cluster wrote %d entries", len(entries))
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
}
