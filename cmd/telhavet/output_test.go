package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func diag(analyzer, posn, msg string) diagnostic {
	d := diagnostic{Package: "example.com/p", Analyzer: analyzer, Posn: posn, Message: msg, Raw: json.RawMessage(`{}`)}
	d.file, d.line, d.col = splitPosn(posn)
	return d
}

// TestSortDiagnostics checks the order of the text output: by file, then
// line and column as numbers.
func TestSortDiagnostics(t *testing.T) {
	diags := []diagnostic{
		diag("printf", "/r/b.go:2:1", "m"),
		diag("rawiter", "/r/a.go:10:2", "m"),
		diag("bytekey", "/r/a.go:9:30", "m"),
		diag("bytekey", "/r/a.go:9:4", "m"),
		diag("C:/x", "/r/a.go:9:4", "m"), // same place: by analyzer
	}
	sortDiagnostics(diags)
	var got []string
	for _, d := range diags {
		got = append(got, d.Posn+" "+d.Analyzer)
	}
	want := []string{"/r/a.go:9:4 C:/x", "/r/a.go:9:4 bytekey", "/r/a.go:9:30 bytekey", "/r/a.go:10:2 rawiter", "/r/b.go:2:1 printf"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted = %q, want %q", got, want)
	}
	if file, line, col := splitPosn(`C:\x\a.go:12:3`); file != `C:\x\a.go` || line != 12 || col != 3 {
		t.Errorf("splitPosn = %q %d %d", file, line, col)
	}
}

// TestSARIF checks the SARIF 2.1.0 log: rules, results with their rule's
// index, positions relative to the root, the advice of Telha findings, and
// the failures as notifications.
func TestSARIF(t *testing.T) {
	diags := []diagnostic{
		diag("bytekey", "/r/graph/keys.go:9:4", "composite literal of opaque storage.Key outside the key authority; use storage.NodeVersionKey"),
		diag("printf", "/elsewhere/x.go:3:1", "fmt.Printf format %d has arg \"x\" of wrong type string"),
	}
	var b bytes.Buffer
	if err := printSARIF(&b, "/r", diags, bundle(), []string{"a package failed"}); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatalf("%v\n%s", err, &b)
	}
	if log.Version != "2.1.0" || !strings.Contains(log.Schema, "sarif-2.1.0") || len(log.Runs) != 1 {
		t.Fatalf("log header = %q %q with %d runs", log.Version, log.Schema, len(log.Runs))
	}
	run := log.Runs[0]
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
		if r.FullDescription.Text == r.ID {
			t.Errorf("rule %s has no description", r.ID)
		}
	}
	if want := append(telhaRules(), "printf"); !slices.Equal(ids, want) {
		t.Errorf("rules = %q, want %q", ids, want)
	}
	if run.OriginalURIBaseID["%SRCROOT%"].URI != "file:///r/" {
		t.Errorf("%%SRCROOT%% = %+v", run.OriginalURIBaseID)
	}
	if len(run.Results) != 2 {
		t.Fatalf("%d results, want 2", len(run.Results))
	}
	telha, vet := run.Results[0], run.Results[1]
	loc := telha.Locations[0].PhysicalLocation
	if telha.RuleID != "bytekey" || ids[telha.RuleIndex] != "bytekey" || telha.Level != "error" ||
		loc.ArtifactLocation.URI != "graph/keys.go" || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" ||
		loc.Region.StartLine != 9 || loc.Region.StartColumn != 4 || telha.Properties["advice"] != "use storage.NodeVersionKey" {
		t.Errorf("Telha result = %+v at %+v", telha, loc)
	}
	if loc := vet.Locations[0].PhysicalLocation; ids[vet.RuleIndex] != "printf" || loc.ArtifactLocation.URI != "file:///elsewhere/x.go" ||
		loc.ArtifactLocation.URIBaseID != "" || vet.Properties != nil {
		t.Errorf("vet result = %+v at %+v", vet, loc)
	}
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful || len(inv.Notifications) != 1 || inv.Notifications[0].Message.Text != "a package failed" {
		t.Errorf("invocation = %+v", inv)
	}
}
