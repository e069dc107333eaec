package storagetest

import (
	"flag"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// RemoteShare is the share of the run's -rapid.checks that Check runs on a
// remote engine: one in fifty.
const RemoteShare = 50

// Check runs the rapid property prop, a test of env's engine. On a local
// engine it is rapid.Check, with the run's -rapid.checks. On a remote one
// (EngineKind.Remote), where each of a case's hundreds of reads is a round
// trip, it runs a RemoteShare-th of them, at least one: the property's
// logic is proven on the local engines, and the remote run shows that the
// remote engine gives it the same answers.
//
// Check sets rapid's flag for the duration of the call, so it must not run
// beside another property test (no t.Parallel around it).
func Check(t *testing.T, env *Env, prop func(*rapid.T)) {
	t.Helper()
	if env.remote {
		checks := flag.Lookup("rapid.checks")
		full := checks.Value.String()
		n, err := strconv.Atoi(full)
		if err != nil {
			t.Fatalf("storagetest: -rapid.checks=%s: %v", full, err)
		}
		if err := checks.Value.Set(strconv.Itoa(max(1, n/RemoteShare))); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = checks.Value.Set(full) }()
	}
	rapid.Check(t, prop)
}
