package cluster

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// memberEnv marks a run of this test binary as a member process.
const memberEnv = "TELHA_CLUSTER_TEST_MEMBER"

func TestMain(m *testing.M) {
	if os.Getenv(memberEnv) != "" {
		if err := MemberMain(os.Args[1:], os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestMemberKilledFromOutside kills a member process behind the cluster's
// back: the cluster reports it on Exits and counts it as stopped, so that
// Stop, which stops the others cleanly, does not report it again.
func TestMemberKilledFromOutside(t *testing.T) {
	var mu sync.Mutex
	var cmds []*exec.Cmd
	c, err := Start(Config{Dir: t.TempDir(), Members: 3}, Processes(func(args []string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), memberEnv+"=1")
		mu.Lock()
		cmds = append(cmds, cmd)
		mu.Unlock()
		return cmd
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() }) // a second Stop finds nothing running
	mu.Lock()
	victim := cmds[1]
	mu.Unlock()
	if err := victim.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case exit := <-c.Exits():
		if !strings.Contains(exit.Error(), "member-1 exited") {
			t.Errorf("Exits reported %v, want member-1", exit)
		}
	case <-time.After(time.Minute):
		t.Fatal("the killed member was not reported")
	}
	if err := c.Stop(); err != nil {
		t.Errorf("Stop with the killed member down: %v, want nil (its exit was reported)", err)
	}
}
