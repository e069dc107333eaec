package storagetest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Child processes: tests of what several processes sharing one store see
// (an etcd cluster's namespace) run the test binary again, as a child that
// serves commands, so that each process has its own memory, caches and
// clock, and a kill is a real SIGKILL. A test binary registers its child
// mains with RegisterChild (from an init function or a package variable)
// and runs its tests through RunMain, which runs a child instead when the
// binary was started as one.
//
// A child reads commands, one a line, from its stdin, and answers each with
// one line on its stdout: "ok" and a result, or "error" and a message
// (ServeCommands). It exits when its stdin closes.

// childEnv names the child main a run of the test binary is to run, and
// childArgsEnv its arguments, separated by newlines.
const (
	childEnv     = "TELHA_STORAGETEST_CHILD"
	childArgsEnv = "TELHA_STORAGETEST_CHILD_ARGS"
)

var children = struct {
	sync.Mutex
	mains map[string]func(args []string) error
}{mains: make(map[string]func(args []string) error)}

// RegisterChild registers main as the child main called name. It panics
// if the name is taken.
func RegisterChild(name string, main func(args []string) error) {
	children.Lock()
	defer children.Unlock()
	if _, ok := children.mains[name]; ok {
		panic(fmt.Sprintf("storagetest: child %q registered twice", name))
	}
	children.mains[name] = main
}

// RunChild runs the child main this process was started as, and exits the
// process: 0 when it returns nil, 1 otherwise. In a process that is not a
// child it returns at once. RunMain calls it first; a TestMain that does
// not use RunMain calls it itself.
func RunChild() {
	name, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	children.Lock()
	main := children.mains[name]
	children.Unlock()
	if main == nil {
		fmt.Fprintf(os.Stderr, "storagetest: no child %q in this test binary\n", name)
		os.Exit(1)
	}
	var args []string
	if a := os.Getenv(childArgsEnv); a != "" {
		args = strings.Split(a, "\n")
	}
	if err := main(args); err != nil {
		fmt.Fprintf(os.Stderr, "child %s: %v\n", name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// ServeCommands reads commands from stdin, one a line, and answers each on
// stdout with "ok " and do's result, or "error " and its error, until
// stdin closes. Fields are separated by spaces; do gets them split. An
// answer holds no newline: do's results and errors must not either.
func ServeCommands(do func(cmd []string) (string, error)) error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		result, err := do(strings.Fields(in.Text()))
		line := "ok " + result
		if err != nil {
			line = "error " + err.Error()
		}
		_, _ = out.WriteString(strings.ReplaceAll(line, "\n", " ") + "\n")
		if err := out.Flush(); err != nil {
			return err
		}
	}
	return in.Err()
}

// ErrChild is the error of a command that a child answered with "error".
var ErrChild = errors.New("child reports")

// Child is a running child process.
type Child struct {
	name string
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Scanner
	mu   sync.Mutex // one command at a time
	done chan struct{}
	err  error // of Wait, once done is closed
}

// StartChild starts the child main called name with args, and kills it
// with SIGKILL when the test ends, if it is still running. Its stderr goes
// to the test's.
func StartChild(t testing.TB, name string, args ...string) *Child {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+name, childArgsEnv+"="+strings.Join(args, "\n"))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child %s: %v", name, err)
	}
	c := &Child{name: name, cmd: cmd, in: in, out: bufio.NewScanner(out), done: make(chan struct{})}
	c.out.Buffer(nil, 1<<20)
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(c.Kill)
	return c
}

// Call sends one command, its fields joined by spaces, and returns the
// child's result. An "error" answer is an error wrapping ErrChild; a child
// that died, or did not answer within timeout, another error.
func (c *Child) Call(timeout time.Duration, fields ...string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	line := strings.Join(fields, " ")
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		return "", fmt.Errorf("child %s: send %q: %w", c.name, line, err)
	}
	answer := make(chan bool, 1)
	go func() { answer <- c.out.Scan() }()
	select {
	case ok := <-answer:
		if !ok {
			return "", fmt.Errorf("child %s: no answer to %q: %v", c.name, line, c.out.Err())
		}
	case <-time.After(timeout):
		c.Kill()
		return "", fmt.Errorf("child %s: no answer to %q within %v (killed)", c.name, line, timeout)
	}
	reply := c.out.Text()
	if rest, ok := strings.CutPrefix(reply, "error "); ok {
		return "", fmt.Errorf("%s %q: %w: %s", c.name, line, ErrChild, rest)
	}
	rest, ok := strings.CutPrefix(reply, "ok ")
	if !ok {
		return "", fmt.Errorf("child %s: answer %q to %q", c.name, reply, line)
	}
	return rest, nil
}

// Kill kills the child with SIGKILL and waits for it; a child that has
// exited is left as it is.
func (c *Child) Kill() {
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	<-c.done
}

// Close closes the child's stdin, which ends it, and waits for it to exit
// within timeout (then kills it). It returns the child's exit error.
func (c *Child) Close(timeout time.Duration) error {
	_ = c.in.Close()
	select {
	case <-c.done:
	case <-time.After(timeout):
		c.Kill()
		return fmt.Errorf("child %s did not exit within %v (killed)", c.name, timeout)
	}
	if c.err != nil {
		return fmt.Errorf("child %s: %w", c.name, c.err)
	}
	return nil
}
