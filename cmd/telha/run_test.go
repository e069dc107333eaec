package main

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

func TestRun(t *testing.T) {
	scope, err := storage.NewTenantScope(uuid.MustParse("11111111-1111-7111-8111-111111111111"), uuid.MustParse("22222222-2222-7222-8222-222222222222"))
	if err != nil {
		t.Fatal(err)
	}
	node := storage.NodeVersionKey(scope, uuid.MustParse("33333333-3333-7333-8333-333333333333"), 0, 1)
	nodeHex := hex.EncodeToString(node.Bytes())

	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // substring
		wantStderr string // substring; stderr must be exactly one line when set
	}{
		{"decode node version", []string{"debug", "decode-key", "node_versions", nodeHex}, exitOK,
			"node_versions scope=11111111-1111-7111-8111-111111111111/22222222-2222-7222-8222-222222222222 id=33333333-3333-7333-8333-333333333333 valid_start=1970-01-01T00:00:00.000000Z tx_start=1970-01-01T00:00:00.000001Z", ""},
		{"decode with 0x and spaces", []string{"debug", "decode-key", "node_versions", "0x" + nodeHex[:10] + " " + nodeHex[10:]}, exitOK, "id=33333333", ""},
		{"layout", []string{"debug", "layout"}, exitOK, "There are 13 column families", ""},
		{"help", []string{"help"}, exitOK, "telha debug decode-key", ""},
		{"demo -h", []string{"demo", "-h"}, exitOK, "usage: telha demo [-data DIR] [-force] | telha demo -etcd ENDPOINTS\n  -data string", ""},
		{"cluster -h", []string{"cluster", "-h"}, exitOK, "usage: telha cluster -data DIR [-members 3] [-port P]\n  -data string", ""},
		{"repair -help", []string{"repair", "-help"}, exitOK, "usage: telha repair -data DIR\n  -data string", ""},
		{"debug -h", []string{"debug", "-h"}, exitOK, "telha debug layout", ""},
		{"no command", nil, exitUsage, "", "missing command"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "", `unknown command "frobnicate"`},
		{"debug without subcommand", []string{"debug"}, exitUsage, "", "missing subcommand"},
		{"unknown family", []string{"debug", "decode-key", "nodes", nodeHex}, exitUsage, "", `unknown column family "nodes"`},
		{"bad hex", []string{"debug", "decode-key", "node_versions", "zz"}, exitUsage, "", "bad hex"},
		{"odd hex", []string{"debug", "decode-key", "node_versions", "abc"}, exitUsage, "", "bad hex"},
		{"wrong length", []string{"debug", "decode-key", "edge_versions", nodeHex[:20]}, exitUsage, "", "wrong key length: 10 bytes, want 64"},
		{"wrong family for bytes", []string{"debug", "decode-key", "bitmap_index", nodeHex}, exitUsage, "", "unknown kind"},
		{"empty hex", []string{"debug", "decode-key", "traces", ""}, exitUsage, "", "wrong key length: 0 bytes"},
		{"missing hex", []string{"debug", "decode-key", "traces"}, exitUsage, "", "want <family> <hex>"},
		{"layout with argument", []string{"debug", "layout", "x"}, exitUsage, "", "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), tt.wantStdout)
			}
			if tt.wantStderr == "" {
				if stderr.Len() != 0 {
					t.Errorf("unexpected stderr %q", stderr.String())
				}
				return
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tt.wantStderr)
			}
			if lines := strings.Count(stderr.String(), "\n"); lines != 1 || !strings.HasPrefix(stderr.String(), "telha: ") {
				t.Errorf("stderr is not one \"telha: \" line: %q", stderr.String())
			}
		})
	}
}
