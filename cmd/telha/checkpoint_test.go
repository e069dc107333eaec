package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"telha.dev/core/storage/storagetest"
)

// TestCheckpointNeverChanges runs a suite of commands against a checkpoint
// and hashes every file of it before and after each: restores from it
// (with the live store's ledger, a ledger file, the checkpoint itself or a
// link to it as the ledger, the new store inside it or onto it, a copy
// named as a restore's work directory), and every command that opens a
// store pointed at it. Those that may not touch it exit 2 with one line;
// the restores that are legal exit 0. Not one byte of the checkpoint
// changes.
func TestCheckpointNeverChanges(t *testing.T) {
	t.Parallel()
	dir, _, gone, node := erasureStore(t)
	base := t.TempDir()
	ckpt, ledgerFile := filepath.Join(base, "ckpt"), filepath.Join(base, "ledger")
	mustTelha(t, "checkpoint", "-data", dir, "-to", ckpt)
	mustTelha(t, "entity", "erase", "-yes", "-data", dir, "-scope", gone, "-id", node.String())
	mustTelha(t, "ledger", "export", "-data", dir, "-o", ledgerFile)
	link := filepath.Join(base, "link")
	if err := os.Symlink(ckpt, link); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(base, "snap")
	copyDir(t, ckpt, snap+".restoring")
	doc := writeDoc(t, base, "doc.txt", "a document\n")
	checkpoints := map[string]storagetest.Files{ckpt: storagetest.HashFiles(t, ckpt), snap + ".restoring": storagetest.HashFiles(t, snap+".restoring")}

	for i, c := range []struct {
		args []string
		want int
	}{
		{[]string{"restore", "-from", ckpt, "-data", filepath.Join(base, "r1"), "-ledger", dir}, exitOK},
		{[]string{"restore", "-from", ckpt, "-data", filepath.Join(base, "r2"), "-ledger", ledgerFile}, exitOK},
		{[]string{"restore", "-from", link, "-data", filepath.Join(base, "r3"), "-ledger", ledgerFile}, exitOK},
		{[]string{"restore", "-from", ckpt, "-data", filepath.Join(ckpt, "restored"), "-ledger", ledgerFile}, exitUsage},
		{[]string{"restore", "-from", ckpt, "-data", filepath.Join(link, "restored"), "-ledger", ledgerFile}, exitUsage},
		{[]string{"restore", "-from", ckpt, "-data", ckpt, "-ledger", ledgerFile}, exitUsage},
		{[]string{"restore", "-from", ckpt, "-data", filepath.Join(base, "r4"), "-ledger", ckpt}, exitUsage},
		{[]string{"restore", "-from", ckpt, "-data", filepath.Join(base, "r5"), "-ledger", link}, exitUsage},
		{[]string{"restore", "-from", snap + ".restoring", "-data", snap, "-ledger", ledgerFile}, exitUsage},
		{[]string{"tenant", "list", "-data", ckpt}, exitUsage},
		{[]string{"tenant", "verify", "-data", ckpt, "-scope", gone}, exitUsage},
		{[]string{"tenant", "erase", "-yes", "-data", link, "-scope", gone}, exitUsage},
		{[]string{"tenant", "provision", "-data", ckpt, "-scope", gone, "-name", "again"}, exitUsage},
		{[]string{"tenant", "export", "-data", ckpt, "-scope", gone, "-o", filepath.Join(base, "x.telha")}, exitUsage},
		{[]string{"entity", "erase", "-yes", "-data", ckpt, "-scope", gone, "-id", node.String()}, exitUsage},
		{[]string{"source", "put", "-data", ckpt, "-scope", gone, doc}, exitUsage},
		{[]string{"source", "get", "-data", ckpt, "-scope", gone, "-id", node.String()}, exitUsage},
		{[]string{"checkpoint", "-data", ckpt, "-to", filepath.Join(base, "ckpt2")}, exitUsage},
		{[]string{"checkpoint", "-data", dir, "-to", filepath.Join(ckpt, "inside")}, exitUsage},
		{[]string{"checkpoint", "-data", dir, "-to", filepath.Join(base, "other.restoring")}, exitUsage},
		{[]string{"ledger", "export", "-data", ckpt, "-o", filepath.Join(base, "l2")}, exitUsage},
		{[]string{"repair", "-data", ckpt}, exitUsage},
		{[]string{"demo", "-data", ckpt, "-force"}, exitUsage},
	} {
		code, _, stderr := telha(t, c.args...)
		if code != c.want || (c.want == exitUsage && strings.Count(stderr, "\n") != 1) {
			t.Errorf("%d: telha %s: exit %d, stderr %q; want %d", i, strings.Join(c.args, " "), code, stderr, c.want)
		}
		for path, files := range checkpoints {
			if diff := files.Diff(storagetest.HashFiles(t, path)); diff != "" {
				t.Fatalf("%d: telha %s changed the checkpoint %s: %s", i, strings.Join(c.args, " "), path, diff)
			}
		}
	}
	for _, r := range []string{"r1", "r2", "r3"} {
		if out := mustTelha(t, "tenant", "list", "-data", filepath.Join(base, r)); !strings.Contains(out, "gone") {
			t.Errorf("the restored store %s does not open as a store: %q", r, out)
		}
	}
}
