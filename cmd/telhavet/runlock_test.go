package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestRunsTakeTurns holds the lock of the go command cache while telhavet
// starts: the run must say in its -x trace that it waits, run no go vet
// until the lock is released, and then finish as usual.
func TestRunsTakeTurns(t *testing.T) {
	t.Parallel()
	bin := buildTelhavet(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.work":  "go 1.26.0\n\nuse ./a\n",
		"a/go.mod": "module example.com/a\n\ngo 1.26.0\n",
		"a/a.go":   "package a\n",
	})
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := lockRuns(strings.TrimSpace(string(out)), false)
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "-x", "./...")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(root, "go.work"))
	stderr := &signalingBuffer{wait: "# waiting for another telhavet run on ", seen: make(chan string)}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		unlock()
		t.Fatalf("the run ended (%v) while another held the lock; stderr:\n%s", err, stderr.String())
	case before := <-stderr.seen:
		if strings.Contains(before, "go vet") {
			t.Errorf("before the lock was released it printed:\n%s\nwant only that it waits", before)
		}
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, <-done); code != 0 {
		t.Errorf("after the lock was released: exit %d, want 0; stderr:\n%s", code, stderr.String())
	}
}

// A signalingBuffer collects what a process writes and sends what it holds
// on seen once that includes wait.
type signalingBuffer struct {
	wait string
	seen chan string

	mu   sync.Mutex
	buf  bytes.Buffer
	sent bool
}

func (b *signalingBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if !b.sent && strings.Contains(b.buf.String(), b.wait) {
		b.sent = true
		b.seen <- b.buf.String()
	}
	return len(p), nil
}

func (b *signalingBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
