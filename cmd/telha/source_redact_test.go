package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
	"telha.dev/sources"
)

const redactCLIMarker = "CLI-REDACT-marker-4d17"

// TestSourceRedactCommand redacts a marker with `telha source redact` on
// RocksDB: the command prints the fact asserted from it, the marker is in
// no file of the store afterwards, the text reads without it, and `telha
// source put` of the original file exits 2. Then `telha source delete
// -erase-facts` deletes the blob and erases the node and the edge
// asserted from it.
func TestSourceRedactCommand(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "store")
	scopes := storagetest.TenantScopes(t, 2)
	scope, other := lifecycle.FormatScope(scopes[0]), lifecycle.FormatScope(scopes[1])
	text := "Minutes. é " + redactCLIMarker + " — end.\n"
	start := strings.Index(text, redactCLIMarker)
	end := start + len(redactCLIMarker)
	redacted := text[:start] + text[end:]
	doc := filepath.Join(dir, "doc.txt")
	mustWrite(t, doc, text)
	id := strings.TrimSpace(mustTelha(t, "source", "put", "-data", data, "-scope", scope, doc))
	otherDoc := filepath.Join(dir, "other.txt")
	mustWrite(t, otherDoc, "the other tenant's minutes\n")
	otherID := strings.TrimSpace(mustTelha(t, "source", "put", "-data", data, "-scope", other, otherDoc))

	// A node and an edge asserted from the marker.
	node, edge := uuid.New(), uuid.New()
	e := storagetest.OpenRocksDB(t, data)
	span := sources.Span{Source: uuid.MustParse(id), Start: uint64(start), End: uint64(end)}
	if err := sources.Open(e, sources.Options{}).Record(scopes[0], span,
		sources.Fact{Kind: storage.IndexNode, ID: node, TxStart: 1}, sources.Fact{Kind: storage.IndexEdge, ID: edge, TxStart: 1}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if !hasMarker(t, data, redactCLIMarker) {
		t.Fatal("the marker is in no file before the redaction: the test proves nothing")
	}
	rng := "-range=" + strconv.Itoa(start) + ":" + strconv.Itoa(end)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no range", []string{"source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id}, "missing -range"},
		{"one offset", []string{"source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, "-range", "5"}, "is not START:END"},
		{"not numbers", []string{"source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, "-range", "a:b"}, "is not START:END"},
		{"negative", []string{"source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, "-range", "-1:4"}, "is not START:END"},
		{"inverted", []string{"source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, "-range", "9:3"}, "bad redaction range"},
		{"empty", []string{"source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, "-range", "3:3"}, "bad redaction range"},
		{"past the end", []string{"source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, "-range", "0:" + strconv.Itoa(len(text)+1)}, "bad redaction range"},
		{"inside a character", []string{"source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, "-range", strconv.Itoa(strings.Index(text, "é")+1) + ":" + strconv.Itoa(start)}, "bad redaction range"},
		{"unknown blob", []string{"source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", uuid.NewString(), rng}, "no such blob"},
		{"another tenant's blob", []string{"source", "delete", "-yes", "-unregistered", "-data", data, "-scope", lifecycle.FormatScope(storagetest.TenantScope(t)), "-id", id}, "no such blob"},
		{"a range to delete", []string{"source", "delete", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, rng}, "-range is for source redact"},
		{"a range to put", []string{"source", "put", "-data", data, "-scope", scope, rng, doc}, "-range is for source redact"},
		{"erase-facts to get", []string{"source", "get", "-data", data, "-scope", scope, "-id", id, "-erase-facts"}, "-erase-facts is for"},
		{"no id", []string{"source", "delete", "-yes", "-unregistered", "-data", data, "-scope", scope}, "is not a blob id"},
	} {
		code, out, errOut := telha(t, tt.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tt.name, code, out, errOut, tt.want)
		}
	}

	out := mustTelha(t, "source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, rng)
	if !strings.Contains(out, "redacted [["+strconv.Itoa(start)+":"+strconv.Itoa(end)+"]] from blob "+id) || !strings.Contains(out, node.String()) {
		t.Errorf("redact printed %q; want the range and the node asserted from it", out)
	}
	if hasMarker(t, data, redactCLIMarker) {
		t.Error("after `telha source redact`, the marker is still in a file of the store")
	}
	if got := mustTelha(t, "source", "get", "-data", data, "-scope", scope, "-id", id); got != redacted {
		t.Errorf("source get after the redaction: %q, want %q", got, redacted)
	}
	if got := mustTelha(t, "source", "get", "-data", data, "-scope", other, "-id", otherID); got != "the other tenant's minutes\n" {
		t.Errorf("the other tenant's copy: %q", got)
	}
	redactedDoc := filepath.Join(dir, "redacted.txt")
	mustWrite(t, redactedDoc, redacted)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"put the original", []string{"source", "put", "-data", data, "-scope", scope, doc}, "blocklisted"},
		{"redact the same range", []string{"source", "redact", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, rng}, "redacted already"},
	} {
		code, out, errOut := telha(t, tt.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tt.name, code, out, errOut, tt.want)
		}
	}

	out = mustTelha(t, "source", "delete", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id, "-erase-facts")
	if !strings.Contains(out, "deleted blob "+id) || !strings.Contains(out, "erased node "+node.String()) ||
		!strings.Contains(out, "erased edge "+edge.String()) {
		t.Errorf("delete printed %q", out)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"delete again", []string{"source", "delete", "-yes", "-unregistered", "-data", data, "-scope", scope, "-id", id}, "blob deleted"},
		{"get", []string{"source", "get", "-data", data, "-scope", scope, "-id", id}, "blob deleted"},
		{"put the original", []string{"source", "put", "-data", data, "-scope", scope, doc}, "blocklisted"},
		{"put the redacted text", []string{"source", "put", "-data", data, "-scope", scope, redactedDoc}, "blocklisted"},
	} {
		code, out, errOut := telha(t, tt.args...)
		if code != exitUsage || out != "" || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", tt.name, code, out, errOut, tt.want)
		}
	}
	// The blocklist is the tenant's: another tenant may ingest the text.
	if got := mustTelha(t, "source", "put", "-data", data, "-scope", other, doc); strings.TrimSpace(got) != id {
		t.Errorf("the other tenant's put of the original: %q", got)
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
