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

// mcpTool is a tool as tools/list describes it: its name and the types
// of its arguments.
type mcpTool struct {
	Name        string
	InputSchema struct {
		Properties map[string]struct {
			Type json.RawMessage // a name, or a list of names
		}
		Required []string
	}
}

// mcpTools returns the tools /mcp lists for token.
func (w *wire) mcpTools(t *testing.T, token string) []mcpTool {
	t.Helper()
	code, out := w.mcpCall(t, token, "tools/list", `{}`)
	var resp struct {
		Result struct {
			Tools []mcpTool `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &resp); code != http.StatusOK || err != nil || len(resp.Result.Tools) == 0 {
		t.Fatalf("tools/list = %d %s (%v)", code, out, err)
	}
	return resp.Result.Tools
}

// hostileArgs returns the arguments of a call of tool, from its schema:
// every required string id (testModel for a model), every required
// number 10, every required array [1] (a vector of testModel).
func hostileArgs(t *testing.T, tool mcpTool, id string) string {
	t.Helper()
	args := map[string]any{}
	for _, name := range tool.InputSchema.Required {
		typ := string(tool.InputSchema.Properties[name].Type)
		switch {
		case name == "model":
			args[name] = testModel
		case strings.Contains(typ, `"string"`):
			args[name] = id
		case strings.Contains(typ, `"integer"`), strings.Contains(typ, `"number"`):
			args[name] = 10
		case strings.Contains(typ, `"array"`):
			args[name] = []float32{1}
		default:
			t.Fatalf("tool %s: no hostile value for %s of type %s", tool.Name, name, typ)
		}
	}
	b, err := json.Marshal(map[string]any{"name": tool.Name, "arguments": args})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// get_node, neighbours, knn and facts over MCP read the caller's data; every
// tool (as tools/list names them, with arguments from its schema) with
// A's token and B's ids returns nothing of B; without a valid token /mcp
// answers 401.
func TestMCPIsolation(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a, b := w.tenants[0], w.tenants[1]
		code, out := w.mcpCall(t, a.token, "tools/call", fmt.Sprintf(`{"name":"get_node","arguments":{"id":%q}}`, a.nodes[0]))
		if code != http.StatusOK || !bytes.Contains(out, []byte(b64(a.marker))) {
			t.Fatalf("get_node of A's own node = %d %s, want its value", code, out)
		}
		code, out = w.mcpCall(t, a.token, "tools/call", fmt.Sprintf(`{"name":"neighbours","arguments":{"id":%q,"direction":"out"}}`, a.nodes[0]))
		if code != http.StatusOK || !bytes.Contains(out, []byte(a.edge.String())) || !bytes.Contains(out, []byte(a.nodes[1].String())) {
			t.Fatalf("neighbours of A's own node = %d %s, want its edge to its second node", code, out)
		}
		code, out = w.mcpCall(t, a.token, "tools/call", fmt.Sprintf(`{"name":"knn","arguments":{"model":%q,"vector":[0.9],"k":10}}`, testModel))
		if code != http.StatusOK || !bytes.Contains(out, []byte(a.nodes[0].String())) || !bytes.Contains(out, []byte(a.nodes[1].String())) {
			t.Fatalf("knn with A's token = %d %s, want A's nodes", code, out)
		}
		code, out = w.mcpCall(t, a.token, "tools/call", fmt.Sprintf(`{"name":"facts","arguments":{"source":%q}}`, a.source))
		if code != http.StatusOK || !bytes.Contains(out, []byte(a.nodes[0].String())) {
			t.Fatalf("facts of A's own document = %d %s, want the fact of its first node", code, out)
		}
		tools := w.mcpTools(t, a.token)
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
			for _, id := range append(b.nodes, b.edge, b.source) {
				code, out := w.mcpCall(t, a.token, "tools/call", hostileArgs(t, tool, id.String()))
				if bytes.Contains(out, []byte(b64(b.marker))) || bytes.Contains(out, []byte(b.marker)) {
					t.Errorf("%s with A's token and B's id %s = %d %s: holds B's data", tool.Name, id, code, out)
				}
				for _, other := range append(b.nodes, b.edge) {
					if other != id && bytes.Contains(out, []byte(other.String())) {
						t.Errorf("%s with A's token and B's id %s = %d %s: names B's %s", tool.Name, id, code, out, other)
					}
				}
				if code != http.StatusOK || bytes.Contains(out, []byte(`"error"`)) {
					t.Errorf("%s with A's token and B's id %s = %d %s: want a tool's answer", tool.Name, id, code, out)
				}
			}
		}
		for _, tok := range []string{"", "garbage", otherSecret(a.token)} {
			if code, out := w.mcpCall(t, tok, "tools/list", `{}`); code != http.StatusUnauthorized {
				t.Errorf("/mcp with token %q = %d %s, want 401", tok, code, out)
			}
		}
		t.Logf("tools: %v", names)
	})
}
