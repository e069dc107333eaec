package main

import (
	"strings"
	"testing"
)

// TestOneScopeNotation: -scope takes TENANT/ORG, as the packages below
// render it, and what the CLI prints on stderr names a scope as
// TENANT:ORG only; -q leaves stderr empty.
func TestOneScopeNotation(t *testing.T) {
	dir, _, gone, _ := erasureStore(t)
	slash := strings.Replace(gone, ":", "/", 1)
	if v := telhaJSON[familyReport](t, exitError, "tenant", "verify", "-data", dir, "-scope", slash); v.Scope != gone {
		t.Errorf("-scope %s resolved to %s, want %s", slash, v.Scope, gone)
	}
	code, _, errOut := telha(t, "tenant", "erase", "-data", dir, "-scope", slash, "-yes")
	if code != exitOK || strings.Contains(errOut, slash) || !strings.Contains(errOut, gone) {
		t.Errorf("tenant erase: exit %d, stderr %q; want progress lines naming %s only", code, errOut, gone)
	}
	code, _, errOut = telha(t, "entity", "erase", "-data", dir, "-scope", gone, "-id", "0190a000-0000-7000-8000-000000000001", "-yes")
	if code != exitUsage || strings.Contains(errOut, slash) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("entity erase of an erased tenant: exit %d, stderr %q; want one line without %s", code, errOut, slash)
	}
	other, kept, _, _ := erasureStore(t)
	code, _, errOut = telha(t, "tenant", "erase", "-data", other, "-scope", kept, "-yes", "-q")
	if code != exitOK || errOut != "" {
		t.Errorf("tenant erase -q: exit %d, stderr %q; want nothing", code, errOut)
	}
}
