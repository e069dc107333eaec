package rocksdb

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Tests that need a second process (a lock held elsewhere, a crash) re-run
// this test binary with childEnv set to "mode:path"; TestChild then acts as
// that process instead of testing.
const childEnv = "TELHA_ROCKSDB_CHILD"

// childModes are the behaviours a child can be asked for.
var childModes = map[string]func(t *testing.T, path string, extra string){
	"hold":  holdChild,
	"crash": crashChild,
	"fill":  fillChild,
}

func TestChild(t *testing.T) {
	spec, ok := os.LookupEnv(childEnv)
	if !ok {
		t.Skip("runs only as a child process of another test")
	}
	mode, rest, _ := strings.Cut(spec, ":")
	path, extra, _ := strings.Cut(rest, "|")
	run, ok := childModes[mode]
	if !ok {
		t.Fatalf("unknown child mode %q", mode)
	}
	run(t, path, extra)
}

// child is a running child process and its stdout, read line by line.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

// startChild runs TestChild in a new process of this binary, with env
// added to its environment.
func startChild(t *testing.T, mode, path, extra string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChild$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), env...), childEnv+"="+mode+":"+path+"|"+extra)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &child{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
}

// waitFor reads the child's stdout until a line equal to want.
func (c *child) waitFor(t *testing.T, want string) {
	t.Helper()
	for c.out.Scan() {
		if c.out.Text() == want {
			return
		}
	}
	t.Fatalf("child ended before printing %q: %v", want, c.out.Err())
}

// holdChild opens the store at path, says "ready", and keeps it open until
// its stdin closes.
func holdChild(t *testing.T, path, _ string) {
	e, err := Open(Config{Path: path, MemtableSize: testMemtableSize})
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("ready\n")
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}
