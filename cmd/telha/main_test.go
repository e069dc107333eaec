package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"telha.dev/core/storage/etcd/etcdtest"
)

// cliChild is the first argument with which this test binary runs as the
// telha command itself, in a child process: the tests that kill telha, or
// that must not hang, run it so.
const cliChild = "test-cli-child"

// freezeEnv, set to N, makes a CLI child stop for good right after it has
// written its N-th line on stderr (a progress line): the parent, which
// reads that line, then kills it with SIGKILL exactly there.
const freezeEnv = "TELHA_TEST_FREEZE_AFTER_LINE"

// TestMain lets `telha cluster`, run inside this test binary, start its
// members (they run this binary again with the hidden member subcommand),
// and runs this binary as the telha command when asked (cliChild).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == memberCommand {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == cliChild {
		var stderr io.Writer = os.Stderr
		if n, err := strconv.Atoi(os.Getenv(freezeEnv)); err == nil {
			stderr = &freezingWriter{w: os.Stderr, left: n}
		}
		os.Exit(run(os.Args[2:], os.Stdout, stderr))
	}
	os.Exit(etcdtest.Run(m)) // m.Run, then the shared etcd cluster of TestEveryCommand stopped
}

// freezingWriter passes lines to w and blocks forever once it has passed
// left of them.
type freezingWriter struct {
	w    io.Writer
	left int
}

func (f *freezingWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if f.left -= bytes.Count(p[:n], []byte("\n")); f.left <= 0 {
		select {}
	}
	return n, err
}

// cliTimeout bounds one CLI child: generous for a loaded machine, and a
// hang (a FIFO opened for reading blocks for good) still fails the test.
const cliTimeout = 2 * time.Minute

// telhaChild runs the telha command in a child process and returns its
// exit status and output; a child that does not exit within timeout is
// killed, and the status is -1.
func telhaChild(t *testing.T, timeout time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{cliChild}, args...)...)
	cmd.Env = os.Environ()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
		return -1, out.String(), errOut.String()
	}
}

// killAfterLine runs the telha command in a child process that stops right
// after its n-th line on stderr, kills it with SIGKILL there, and returns
// the lines it wrote. killed is false if the child exited before its n-th
// line (it writes fewer).
func killAfterLine(t *testing.T, n int, args ...string) (lines []string, killed bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{cliChild}, args...)...)
	cmd.Env = append(os.Environ(), freezeEnv+"="+strconv.Itoa(n))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(cliTimeout, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	sc := bufio.NewScanner(stderr)
	for len(lines) < n && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) == n {
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = io.Copy(io.Discard, stderr)
	_ = cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	killed = ws.Signaled() && ws.Signal() == syscall.SIGKILL
	switch {
	case len(lines) == n && !killed:
		t.Fatalf("telha %s: stopped after line %d but was not killed: %v", strings.Join(args, " "), n, cmd.ProcessState)
	case len(lines) < n && killed:
		t.Fatalf("telha %s: hung after %d lines, killed after %v", strings.Join(args, " "), len(lines), cliTimeout)
	}
	return lines, killed
}
