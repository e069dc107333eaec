package lifecycle

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenInputRefusesSpecialFiles gives OpenInput every kind of path an
// operator, or a hostile file, may name: a FIFO with no writer (opening it
// for reading would block forever), a socket, a character device, a
// directory, and symbolic links to each. Each is ErrNotRegular, at once; a
// regular file and a link to one open.
func TestOpenInputRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	mustDo(t, syscall.Mkfifo(fifo, 0o600))
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	mustDo(t, err)
	defer l.Close()
	file := filepath.Join(dir, "file")
	mustDo(t, os.WriteFile(file, []byte("an export"), 0o600))
	refused := map[string]string{"a FIFO": fifo, "a socket": sock, "a character device": "/dev/null", "a directory": dir, "/dev/zero": "/dev/zero"}
	opens := map[string]string{"a regular file": file}
	for name, target := range map[string]string{"FIFO": fifo, "socket": sock, "directory": dir, "file": file} {
		link := filepath.Join(dir, "link-to-"+name)
		mustDo(t, os.Symlink(target, link))
		if name == "file" {
			opens["a link to a file"] = link
		} else {
			refused["a link to a "+name] = link
		}
	}
	for name, path := range refused {
		done := make(chan error, 1)
		go func() {
			f, err := OpenInput(path)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("OpenInput of %s = %v, want ErrNotRegular", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("OpenInput of %s blocked for 10 s", name)
		}
	}
	for name, path := range opens {
		f, err := OpenInput(path)
		if err != nil {
			t.Errorf("OpenInput of %s: %v", name, err)
			continue
		}
		mustDo(t, f.Close())
	}
	if _, err := ReadLedger(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadLedger of a FIFO = %v, want ErrNotRegular", err)
	}
}
