package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestServe runs telha serve in a child process on a store whose tenant
// has a key from telha key create: the key's token writes and reads a node
// over Connect's JSON, a call without it is unauthenticated, and SIGTERM
// drains the server to exit 0; the tenant's bound comes from the flags
// (a rate of two calls and no refill: the third is resource_exhausted),
// and a bound out of range is a usage error. (Revocation while serving is the server
// module's test: a RocksDB store is open in one process at a time.)
func TestServe(t *testing.T) {
	dir, _, _, _ := erasureStore(t)
	out := strings.Split(strings.TrimSpace(mustTelha(t, "key", "create", "-data", dir, "-scope", "kept")), "\n")
	token := out[len(out)-1]

	if code, _, stderr := telha(t, "serve", "-data", dir, "-tenant-concurrency", "0"); code != exitUsage || strings.Count(stderr, "\n") != 1 {
		t.Errorf("telha serve -tenant-concurrency 0: exit %d, stderr %q; want %d and one line", code, stderr, exitUsage)
	}
	cmd := exec.Command(os.Args[0], cliChild, "serve", "-data", dir, "-listen", "127.0.0.1:0", "-tenant-rate", "0.000001", "-tenant-burst", "2")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(cliTimeout, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "listening ") {
		_ = cmd.Process.Kill()
		t.Fatalf("telha serve: first line %q, want listening HOST:PORT", sc.Text())
	}
	base := "http://" + strings.TrimPrefix(sc.Text(), "listening ") + "/telha.v1.TemporalService/"
	call := func(method, token, body string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, base+method, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode
	}
	id := uuid.NewString()
	if got := call("PutNode", token, `{"id":"`+id+`","value":"aGk="}`); got != http.StatusOK {
		t.Errorf("PutNode with the key's token: HTTP %d, want 200", got)
	}
	if got := call("GetNode", token, `{"id":"`+id+`"}`); got != http.StatusOK {
		t.Errorf("GetNode with the key's token: HTTP %d, want 200", got)
	}
	if got := call("GetNode", "", `{"id":"`+id+`"}`); got != http.StatusUnauthorized {
		t.Errorf("GetNode without a token: HTTP %d, want 401", got)
	}
	if got := call("GetNode", token, `{"id":"`+id+`"}`); got != http.StatusTooManyRequests {
		t.Errorf("GetNode past the tenant's rate: HTTP %d, want 429", got)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("telha serve after SIGTERM: %v, want exit 0", err)
	}
}
