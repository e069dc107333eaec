package storagetest

import (
	"flag"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// TestCheckRunsAShareOnRemoteEngines counts the cases Check runs: the
// run's -rapid.checks on a local engine, a RemoteShare-th of them on a
// remote one, and the flag as it was afterwards.
func TestCheckRunsAShareOnRemoteEngines(t *testing.T) {
	full, err := strconv.Atoi(flag.Lookup("rapid.checks").Value.String())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		remote bool
		want   int
	}{
		{false, full},
		{true, max(1, full/RemoteShare)},
	} {
		cases := 0
		Check(t, &Env{remote: tt.remote}, func(*rapid.T) { cases++ })
		if cases != tt.want {
			t.Errorf("remote=%v: %d cases, want %d", tt.remote, cases, tt.want)
		}
		if got := flag.Lookup("rapid.checks").Value.String(); got != strconv.Itoa(full) {
			t.Errorf("remote=%v: -rapid.checks is %s afterwards, want %d", tt.remote, got, full)
		}
	}
}
