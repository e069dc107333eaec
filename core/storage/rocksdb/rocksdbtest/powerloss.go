// Package rocksdbtest simulates power loss under a RocksDB store, for the
// tests of code that must acknowledge nothing before it is durable.
//
// Killing a process loses nothing it wrote: the kernel's page cache keeps
// every write, synced or not, so a kill test cannot tell a write that was
// synced before it was acknowledged from one that was not. A power loss
// can. PowerLoss preloads a small shared library (shim/synclog.c) into a
// child process; the library records each sync of a write-ahead log and
// the length it covered. After the child is killed, Cut truncates every log
// to that length, dropping what a power loss may drop: whatever the child
// wrote to a log and did not sync. A batch acknowledged before its sync is
// then missing from the store.
//
// The simulation cuts write-ahead logs only: table files and the MANIFEST,
// which RocksDB syncs on its own before it relies on them, are left as the
// kill left them.
package rocksdbtest

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

//go:embed shim/synclog.c
var shimSource []byte

// recordEnv names the file where the shim records syncs.
const recordEnv = "TELHA_SYNC_RECORD"

// PowerLoss cuts one store's write-ahead logs back to what its child
// processes synced. Use it round by round: Arm, start the child with the
// environment Arm returns, kill it, Cut.
type PowerLoss struct {
	dir    string // the store
	shim   string // the built library
	record string // the sync record of the current round
	// durable is, per log, the length that is on stable storage: the
	// length it had when the round was armed (written by processes that
	// closed cleanly, or cut back already) or the longest sync since.
	durable map[string]int64
	round   int
}

// New builds the shim with the C compiler cgo uses, for the store at dir.
func New(t testing.TB, dir string) *PowerLoss {
	t.Helper()
	work := t.TempDir()
	src := filepath.Join(work, "synclog.c")
	if err := os.WriteFile(src, shimSource, 0o600); err != nil {
		t.Fatal(err)
	}
	shim := filepath.Join(work, "synclog.so")
	cc := strings.Fields(goEnv(t, "CC"))
	if len(cc) == 0 {
		t.Fatal("go env CC names no C compiler: the power-loss shim cannot be built")
	}
	args := append(cc[1:], "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", shim, src, "-ldl")
	if out, err := exec.Command(cc[0], args...).CombinedOutput(); err != nil {
		t.Fatalf("build the power-loss shim: %v\n%s", err, out)
	}
	return &PowerLoss{dir: dir, shim: shim}
}

func goEnv(t testing.TB, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// Arm takes the store's logs as they are now as durable, and returns the
// environment entries that make a child process record its log syncs: add
// them to the child's environment.
func (p *PowerLoss) Arm(t testing.TB) []string {
	t.Helper()
	p.round++
	p.record = filepath.Join(filepath.Dir(p.shim), "syncs-"+strconv.Itoa(p.round))
	p.durable = make(map[string]int64)
	for _, log := range p.logs(t) {
		info, err := os.Stat(log)
		if err != nil {
			t.Fatal(err)
		}
		p.durable[log] = info.Size()
	}
	return []string{"LD_PRELOAD=" + p.shim, recordEnv + "=" + p.record}
}

// Cut truncates each log of the store to its durable length, after the
// child armed last has been killed, and returns the bytes it dropped and
// the number of syncs the child made.
func (p *PowerLoss) Cut(t testing.TB) (dropped int64, syncs int) {
	t.Helper()
	data, err := os.ReadFile(p.record)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		size, path, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || err != nil {
			t.Fatalf("bad sync record line %q", line)
		}
		syncs++
		p.durable[path] = max(p.durable[path], n)
	}
	for _, log := range p.logs(t) {
		info, err := os.Stat(log)
		if err != nil {
			t.Fatal(err)
		}
		if keep := p.durable[log]; info.Size() > keep {
			if err := os.Truncate(log, keep); err != nil {
				t.Fatal(err)
			}
			dropped += info.Size() - keep
		}
	}
	return dropped, syncs
}

// logs returns the paths of the store's write-ahead logs, as the shim
// names them.
func (p *PowerLoss) logs(t testing.TB) []string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(p.dir)
	if err != nil {
		t.Fatal(fmt.Errorf("power loss: %w", err))
	}
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	return logs
}
