package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"telha.dev/core/storage/storagetest"
)

// mcpCall posts one JSON-RPC request to /mcp with token (none if empty)
// and returns the status and the body.
func (w *wire) mcpCall(t testing.TB, token, method, params string) (int, []byte) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`, method, params)
	req, err := http.NewRequest(http.MethodPost, w.http.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// mcpTools returns the names of the tools /mcp lists for token.
func (w *wire) mcpTools(t *testing.T, token string) []string {
	t.Helper()
	code, out := w.mcpCall(t, token, "tools/list", `{}`)
	var resp struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &resp); code != http.StatusOK || err != nil || len(resp.Result.Tools) == 0 {
		t.Fatalf("tools/list = %d %s (%v)", code, out, err)
	}
	var names []string
	for _, tool := range resp.Result.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// get_node over MCP reads the caller's node; every tool (as tools/list
// names them) with A's token and B's ids returns nothing of B; without a
// valid token /mcp answers 401.
func TestMCPIsolation(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a, b := w.tenants[0], w.tenants[1]
		code, out := w.mcpCall(t, a.token, "tools/call", fmt.Sprintf(`{"name":"get_node","arguments":{"id":%q}}`, a.nodes[0]))
		if code != http.StatusOK || !bytes.Contains(out, []byte(b64(a.marker))) {
			t.Fatalf("get_node of A's own node = %d %s, want its value", code, out)
		}
		tools := w.mcpTools(t, a.token)
		for _, tool := range tools {
			for _, id := range append(b.nodes, b.edge) {
				args := fmt.Sprintf(`{"name":%q,"arguments":{"id":%q,"node":%q,"from":%q,"source":%q}}`, tool, id, id, id, id)
				code, out := w.mcpCall(t, a.token, "tools/call", args)
				if bytes.Contains(out, []byte(b64(b.marker))) || bytes.Contains(out, []byte(b.marker)) {
					t.Errorf("%s with A's token and B's id %s = %d %s: holds B's data", tool, id, code, out)
				}
			}
		}
		for _, tok := range []string{"", "garbage", otherSecret(a.token)} {
			if code, out := w.mcpCall(t, tok, "tools/list", `{}`); code != http.StatusUnauthorized {
				t.Errorf("/mcp with token %q = %d %s, want 401", tok, code, out)
			}
		}
		t.Logf("tools: %v", tools)
	})
}
