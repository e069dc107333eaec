package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
)

// decodeJSON decodes out, one JSON value, into a new T, refusing fields T
// does not document.
func decodeJSON[T any](t *testing.T, what, out string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v in %q", what, err, out)
	}
	if dec.More() {
		t.Fatalf("%s: more than one JSON value in %q", what, out)
	}
	return v
}

// telhaJSON runs a command with -o json that must succeed (or, with
// okCode, exit so) and decodes its stdout.
func telhaJSON[T any](t *testing.T, okCode int, args ...string) T {
	t.Helper()
	code, out, errOut := telha(t, append(args, "-o", "json")...)
	if code != okCode {
		t.Fatalf("telha %s -o json: exit %d, stderr %q", strings.Join(args, " "), code, errOut)
	}
	return decodeJSON[T](t, strings.Join(args, " "), out)
}

// TestDeliberateDestruction: a destroying command refuses a scope the
// registry does not hold (exit 2, no ledger entry) unless -unregistered;
// -dry-run reports what would go, per family, and leaves every row.
func TestDeliberateDestruction(t *testing.T) {
	dir, _, gone, node := erasureStore(t)
	doc := writeDoc(t, t.TempDir(), "doc.txt", "gone's notes: alice knows bob\n")
	blob := strings.TrimSpace(mustTelha(t, "source", "put", "-data", dir, "-scope", "gone", doc))
	stranger := lifecycle.FormatScope(storagetest.TenantScope(t))
	before := telhaJSON[familyReport](t, exitError, "tenant", "verify", "-data", dir, "-scope", gone)
	if before.Rows == 0 {
		t.Fatal("the fixture's tenant has no rows")
	}
	ledgerLen := func() int { return len(telhaJSON[[]ledgerRow](t, exitOK, "ledger", "list", "-data", dir)) }

	for _, args := range [][]string{
		{"tenant", "erase", "-data", dir, "-scope", stranger, "-yes"},
		{"entity", "erase", "-data", dir, "-scope", stranger, "-id", node.String(), "-yes"},
		{"source", "redact", "-data", dir, "-scope", stranger, "-id", blob, "-range", "0:4", "-yes"},
		{"source", "delete", "-data", dir, "-scope", stranger, "-id", blob, "-yes"},
	} {
		code, out, errOut := telha(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, stranger+" is not in the tenant registry") ||
			!strings.Contains(errOut, "pass -unregistered") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("telha %s: exit %d, stdout %q, stderr %q; want exit 2 and the refusal", strings.Join(args, " "), code, out, errOut)
		}
	}
	if n := ledgerLen(); n != 0 {
		t.Fatalf("refused erasures wrote %d ledger entries", n)
	}

	r := telhaJSON[erasureReport](t, exitOK, "tenant", "erase", "-data", dir, "-scope", "gone", "-dry-run")
	if !r.DryRun || r.Rows != before.Rows || r.Bytes != before.Bytes || r.Ledger != "" || len(r.Families) == 0 {
		t.Errorf("tenant erase -dry-run: %+v; want the %d rows, %d bytes verify counts", r, before.Rows, before.Bytes)
	}
	e := telhaJSON[erasureReport](t, exitOK, "entity", "erase", "-data", dir, "-scope", "gone", "-id", node.String(), "-dry-run")
	if !e.DryRun || e.Rows == 0 || e.Entity != node.String() {
		t.Errorf("entity erase -dry-run: %+v", e)
	}
	for _, sub := range []string{"redact", "delete"} {
		args := []string{"source", sub, "-data", dir, "-scope", "gone", "-id", blob, "-dry-run"}
		if sub == "redact" {
			args = append(args, "-range", "0:4")
		}
		red := telhaJSON[redactionReport](t, exitOK, args...)
		if !red.DryRun || red.Rows == 0 || red.Blob != blob || red.Deleted != (sub == "delete") {
			t.Errorf("source %s -dry-run: %+v", sub, red)
		}
	}
	after := telhaJSON[familyReport](t, exitError, "tenant", "verify", "-data", dir, "-scope", gone)
	if after.Rows != before.Rows || after.Bytes != before.Bytes {
		t.Errorf("the dry runs changed the tenant: %d rows, %d bytes before, %d, %d after", before.Rows, before.Bytes, after.Rows, after.Bytes)
	}
	if got := mustTelha(t, "source", "get", "-data", dir, "-scope", "gone", "-id", blob); !strings.HasPrefix(got, "gone's notes") {
		t.Errorf("the dry runs changed the document: %q", got)
	}
	if n := ledgerLen(); n != 0 {
		t.Fatalf("dry runs wrote %d ledger entries", n)
	}

	// -unregistered erases a scope the registry does not hold, on purpose.
	u := telhaJSON[erasureReport](t, exitOK, "tenant", "erase", "-data", dir, "-scope", stranger, "-unregistered", "-yes")
	if u.DryRun || u.Ledger == "" || u.Rows != 0 {
		t.Errorf("tenant erase -unregistered: %+v", u)
	}
	if n := ledgerLen(); n != 1 {
		t.Errorf("the erasure of the unregistered scope wrote %d ledger entries, want 1", n)
	}
}

// TestErasePromptOnATerminal runs tenant erase in a child process whose
// standard input is a pseudo-terminal (creack/pty): it asks for the
// tenant's name; a wrong answer erases nothing (exit 2), the name erases.
func TestErasePromptOnATerminal(t *testing.T) {
	dir, _, gone, _ := erasureStore(t)
	for _, tt := range []struct {
		typed    string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"kept", exitUsage, "", `"kept" is not the tenant's name "gone"`},
		{"", exitUsage, "", "is not the tenant's name"},
		{"gone", exitOK, "erased tenant " + gone, `Type the tenant's name "gone" (or ` + gone + `) to confirm`},
	} {
		master, slave, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], cliChild, "tenant", "erase", "-data", dir, "-scope", "gone")
		var stdout, stderr bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		slave.Close()
		go func() { _, _ = bytes.NewBuffer(nil).ReadFrom(master) }() // the echo
		if _, err := master.Write([]byte(tt.typed + "\n")); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(cliTimeout):
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("typed %q: the prompt did not return", tt.typed)
		}
		master.Close()
		code := cmd.ProcessState.ExitCode()
		if code != tt.wantCode || !strings.Contains(stdout.String(), tt.wantOut) || !strings.Contains(stderr.String(), tt.wantErr) ||
			!strings.Contains(stderr.String(), "erase tenant "+gone+": 150 rows") {
			t.Errorf("typed %q: exit %d, stdout %q, stderr %q; want exit %d, %q and %q", tt.typed, code, stdout.String(), stderr.String(), tt.wantCode, tt.wantOut, tt.wantErr)
		}
		rows := telhaJSON[familyReport](t, map[bool]int{true: exitOK, false: exitError}[tt.wantCode == exitOK], "tenant", "verify", "-data", dir, "-scope", gone).Rows
		if (rows == 0) != (tt.wantCode == exitOK) {
			t.Errorf("typed %q: %d rows remain", tt.typed, rows)
		}
	}
}
