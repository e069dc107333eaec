package lifecycle

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// crashChildEnv carries "store dir|step|tenant|organization" to the child
// process of TestEraseSurvivesKill.
const crashChildEnv = "TELHA_LIFECYCLE_ERASE_CHILD"

// TestEraseCrashChild is the child's body: it erases the tenant and kills
// itself with SIGKILL right after the step it is given. It runs only when
// re-executed by TestEraseSurvivesKill.
func TestEraseCrashChild(t *testing.T) {
	e, step, scope, _ := crashChild(t, crashChildEnv)
	_, err := EraseTenant(e, scope, EraseOptions{})
	t.Fatalf("the erasure returned (%v) instead of being killed after %s", err, step)
}

// crashChild reads the spec "store dir|step|tenant|organization|rest..."
// that the parent put in the environment variable env, opens the store,
// and makes the process kill itself with SIGKILL right after the step. It
// returns the store, the step, the tenant and the rest of the spec; it
// skips t when env is not set (the test runs as a child only).
func crashChild(t *testing.T, env string) (storage.Engine, EraseStep, storage.TenantScope, []string) {
	spec, ok := os.LookupEnv(env)
	if !ok {
		t.Skip("runs only as the child process of a crash test")
	}
	parts := strings.Split(spec, "|")
	n, err := strconv.Atoi(parts[1])
	mustDo(t, err)
	scope, err := storage.NewTenantScope(uuid.MustParse(parts[2]), uuid.MustParse(parts[3]))
	mustDo(t, err)
	e := storagetest.OpenRocksDB(t, parts[0])
	step := EraseStep(n)
	afterStep = func(s EraseStep) error {
		if s == step {
			mustDo(t, syscall.Kill(os.Getpid(), syscall.SIGKILL))
			select {}
		}
		return nil
	}
	return e, step, scope, parts[4:]
}

// runCrashChild runs test in a child process with env set to
// "dir|step|tenant|organization|rest..." and fails t unless SIGKILL ended
// it.
func runCrashChild(t *testing.T, test, env, dir string, step EraseStep, scope storage.TenantScope, rest ...string) {
	t.Helper()
	spec := strings.Join(append([]string{dir, strconv.Itoa(int(step)), scope.Tenant().String(), scope.Organization().String()}, rest...), "|")
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+spec)
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed after %s: %v\n%s", step, err, out)
	}
}

// TestEraseSurvivesKill erases a tenant in a child process killed with
// SIGKILL right after each step, then opens the store, runs Resume, and
// checks that the erasure completed, that the marker is in no file, and
// that the other tenant is byte-identical.
func TestEraseSurvivesKill(t *testing.T) {
	for step := StepMarkErasing; step <= StepMarkErased; step++ {
		t.Run(step.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			e, kept, erased := markerStore(t, dir, filepath.Join(t.TempDir(), "ckpt"))
			before := dump(t, e, kept)
			had := countRows(t, e, erased)
			mustDo(t, e.Close())

			runCrashChild(t, "TestEraseCrashChild", crashChildEnv, dir, step, erased)

			e = storagetest.OpenRocksDB(t, dir)
			_, err := Resume(e, EraseOptions{})
			mustDo(t, err)
			checkErased(t, e, erased, had)
			if !bytes.Equal(dump(t, e, kept), before) {
				t.Error("the kept tenant changed")
			}
			if hits := grepDir(t, dir, erasedMarker); len(hits) > 0 {
				t.Errorf("after the resumed erasure, the marker is in %v", hits)
			}
		})
	}
}
