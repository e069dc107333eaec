package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFileInputs gives every command that reads an input file (an
// export to import, a document to put, a ledger to restore from) a FIFO
// with no writer, a socket, a character device, a directory and links to
// them, each in a child process: opening a FIFO for reading would block
// for good. Each exits 2 at once with one line naming what the path is,
// writes nothing, and creates no store at a new -data.
func TestSpecialFileInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "store")
	scope := "0190a000-0000-7000-8000-0000000000a1:0190a000-0000-7000-8000-00000000000f"
	mustTelha(t, "tenant", "provision", "-data", data, "-scope", scope, "-name", "acme")
	ckpt := filepath.Join(dir, "ckpt")
	mustTelha(t, "checkpoint", "-data", data, "-to", ckpt)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	inputs := map[string]string{
		"a FIFO": fifo, "a socket": filepath.Join(dir, "sock"), "/dev/zero": "/dev/zero", "a directory": ckpt,
	}
	for name, target := range map[string]string{"FIFO": fifo, "directory": ckpt} {
		link := filepath.Join(dir, "link-to-"+name)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		inputs["a link to a "+name] = link
	}
	for name, path := range inputs {
		fresh := filepath.Join(dir, "fresh-"+strings.ReplaceAll(name, " ", "-"))
		for _, args := range [][]string{
			{"tenant", "import", "-data", data, "-scope", "acme", path},
			{"source", "put", "-data", fresh, "-scope", scope, path},
			{"restore", "-from", ckpt, "-data", filepath.Join(dir, "restored"), "-ledger", path},
		} {
			if strings.Contains(name, "directory") && args[0] == "restore" {
				continue // a directory is a store's ledger; the checkpoint's own is refused elsewhere
			}
			start := time.Now()
			code, stdout, stderr := telhaChild(t, 30*time.Second, args...)
			if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "not a regular file") {
				t.Errorf("telha %s with %s: exit %d after %v, stdout %q, stderr %q; want exit 2 and one line saying it is not a regular file",
					args[0]+" "+args[1], name, code, time.Since(start).Round(time.Millisecond), stdout, stderr)
			}
			if _, err := os.Lstat(fresh); err == nil {
				t.Errorf("telha source put of %s created a store at %s", name, fresh)
			}
			if _, err := os.Lstat(filepath.Join(dir, "restored")); err == nil {
				t.Errorf("telha restore with %s as ledger made a store", name)
			}
		}
	}
}
