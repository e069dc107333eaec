package storage

import (
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// notInlined lists the key setters that are allowed not to inline, with the
// reason: they hash their input first, and the hash dominates.
var notInlined = map[string]string{
	"SetEdgeType":  "hashes the edge type into its schema label",
	"SetBlocklist": "hashes the keyed digest with blake3",
}

// TestIntendedInlining asks the compiler which functions of this package it
// can inline and fails for every Key setter it cannot, in the manner of
// cmd/compile's test of the same name. A setter that stops inlining costs a
// call, which is as much as the encoding itself (BENCHMARKS.md); the cure is
// to make it cheaper again, not to drop it from this test.
func TestIntendedInlining(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to ask the compiler: %v", err)
	}
	out, err := exec.Command(goTool, "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	canInline := regexp.MustCompile(`can inline \(\*Key\)\.(\w+)`)
	inlined := make(map[string]bool)
	for _, m := range canInline.FindAllStringSubmatch(string(out), -1) {
		inlined[m[1]] = true
	}
	keyPtr := reflect.TypeFor[*Key]()
	setters := 0
	for i := range keyPtr.NumMethod() {
		name := keyPtr.Method(i).Name
		if !strings.HasPrefix(name, "Set") {
			continue
		}
		setters++
		if _, exempt := notInlined[name]; !exempt && !inlined[name] {
			t.Errorf("(*Key).%s does not inline; see the budget with go build -gcflags=-m=2", name)
		}
	}
	if setters < 20 {
		t.Fatalf("found %d Key setters, want every layout's (at least 20)", setters)
	}
}
