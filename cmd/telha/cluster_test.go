package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClusterDemo runs `telha cluster` as an operator would, runs the demo
// twice against the endpoints it prints, and stops it with SIGTERM: it
// exits 0 and its members no longer listen.
func TestClusterDemo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cluster")
	stdoutR, stdoutW := io.Pipe()
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run([]string{"cluster", "-data", dir}, stdoutW, &stderr)
		stdoutW.Close()
	}()
	lines := bufio.NewScanner(stdoutR)
	if !lines.Scan() {
		t.Fatalf("telha cluster printed nothing; exit %d, stderr %q", <-exit, stderr.String())
	}
	endpoints, ok := strings.CutPrefix(lines.Text(), "endpoints ")
	if !ok || len(strings.Split(endpoints, ",")) != 3 {
		t.Fatalf("first line %q, want endpoints of three members", lines.Text())
	}

	want := []string{
		"acme     alice.tenant=acme     city=Porto   two hops: bob@1, carol@2",
		"globex   alice.tenant=globex   city=Lisbon  two hops: dave@1, bob@1, carol@2",
		"2 nearest, city = Lisbon:  carol (0.2585)",
		"job is completed after 1 attempt(s)",
	}
	for i, first := range []string{"created a new store at etcd ", "reusing the store at etcd "} {
		var out, errOut bytes.Buffer
		if code := run([]string{"demo", "-etcd", endpoints}, &out, &errOut); code != exitOK {
			t.Fatalf("demo %d: exit %d, stderr %q", i+1, code, errOut.String())
		}
		if !strings.HasPrefix(out.String(), first+endpoints) {
			t.Errorf("demo %d: output starts %q, want %q", i+1, strings.SplitN(out.String(), "\n", 2)[0], first+endpoints)
		}
		for _, line := range want {
			if !strings.Contains(out.String(), line+"\n") {
				t.Errorf("demo %d: output lacks %q:\n%s", i+1, line, out.String())
			}
		}
	}

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exit:
		if code != exitOK {
			t.Errorf("telha cluster exited %d after SIGTERM, stderr %q", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("telha cluster did not stop within a minute of SIGTERM")
	}
	if lines.Scan() {
		t.Errorf("telha cluster printed a second line: %q", lines.Text())
	}
	for _, endpoint := range strings.Split(endpoints, ",") {
		if c, err := net.DialTimeout("tcp", endpoint, time.Second); err == nil {
			c.Close()
			t.Errorf("a member still listens at %s after the cluster stopped", endpoint)
		}
	}
}

func TestClusterUsage(t *testing.T) {
	even := t.TempDir()
	damaged := t.TempDir()
	if err := os.WriteFile(filepath.Join(damaged, "cluster.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	foreign := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"no data directory", []string{"cluster"}, "-data is required"},
		{"a directory of other files", []string{"cluster", "-data", foreign}, "not a cluster directory"},
		{"extra argument", []string{"cluster", "-data", even, "x"}, `unexpected argument "x"`},
		{"unknown flag", []string{"cluster", "-x"}, "flag provided but not defined: -x"},
		{"even members", []string{"cluster", "-data", even, "-members", "2"}, "2 members"},
		{"damaged layout", []string{"cluster", "-data", damaged}, "cluster layout"},
		{"port out of range", []string{"cluster", "-data", even, "-port", "65535"}, "not valid"},
		{"demo on both stores", []string{"demo", "-data", even, "-etcd", "127.0.0.1:1"}, "-etcd excludes -data and -force"},
		{"demo on etcd with -force", []string{"demo", "-force", "-etcd", "127.0.0.1:1"}, "-etcd excludes -data and -force"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code != exitUsage {
				t.Errorf("exit code %d, want %d (stderr %q)", code, exitUsage, stderr.String())
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q: want one line containing %q", stderr.String(), tt.wantStderr)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", stdout.String())
			}
		})
	}
}
