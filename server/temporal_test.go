package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"github.com/google/uuid"

	"telha.dev/core/storage/storagetest"
	telhav1 "telha.dev/server/gen/telha/v1"
	"telha.dev/server/gen/telha/v1/telhav1connect"
)

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// PutNode and GetNode by their wire names, in Connect's JSON, as curl
// sends them: the answer is {"version": {..., "value": ...}} or the
// Connect error not_found (HTTP 404).
func TestPutGetNodeJSON(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a := w.tenants[0]
		id := uuid.New()
		w.mustCall(t, a.token, "telha.v1.TemporalService/PutNode", fmt.Sprintf(`{"id":%q,"value":%q,"validFrom":"2024-05-01T00:00:00Z"}`, id, b64("hello")))
		w.mustCall(t, a.token, "telha.v1.TemporalService/PutNode", fmt.Sprintf(`{"id":%q,"value":%q}`, id, b64("now")))
		out := w.mustCall(t, a.token, "telha.v1.TemporalService/GetNode", fmt.Sprintf(`{"id":%q,"asOf":"2024-06-01T00:00:00Z"}`, id))
		var got struct {
			Version struct {
				ID    string `json:"id"`
				Value []byte `json:"value"`
			} `json:"version"`
		}
		if err := json.Unmarshal(out, &got); err != nil || got.Version.ID != id.String() || string(got.Version.Value) != "hello" {
			t.Fatalf("GetNode as of June 2024 = %s (%v), want the value hello", out, err)
		}
		out = w.mustCall(t, a.token, "telha.v1.TemporalService/GetNode", fmt.Sprintf(`{"id":%q}`, id))
		if err := json.Unmarshal(out, &got); err != nil || string(got.Version.Value) != "now" {
			t.Fatalf("GetNode now = %s (%v), want the value now", out, err)
		}
		code, out := w.call(t, a.token, "telha.v1.TemporalService/GetNode", fmt.Sprintf(`{"id":%q}`, uuid.New()))
		if code != http.StatusNotFound || !bytes.Contains(out, []byte(`"code":"not_found"`)) {
			t.Fatalf("GetNode of an unknown id = %d %s, want 404 not_found", code, out)
		}
		out = w.mustCall(t, a.token, "telha.v1.TemporalService/NodeHistory", fmt.Sprintf(`{"id":%q}`, id))
		var hist struct{ Versions []json.RawMessage }
		if err := json.Unmarshal(out, &hist); err != nil || len(hist.Versions) < 2 {
			t.Fatalf("NodeHistory = %s (%v), want the versions", out, err)
		}
		for _, bad := range []string{`{"id":"not-a-uuid"}`, `{"id":"00000000-0000-0000-0000-000000000000"}`, `{"id":1}`, `{`} {
			if code, out := w.call(t, a.token, "telha.v1.TemporalService/GetNode", bad); code != http.StatusBadRequest {
				t.Errorf("GetNode %s = %d %s, want 400 invalid_argument", bad, code, out)
			}
		}
		if code, out := w.call(t, a.token, "telha.v1.TemporalService/NodeHistory", fmt.Sprintf(`{"id":%q,"pageSize":100000}`, id)); code != http.StatusTooManyRequests {
			t.Errorf("NodeHistory over the page limit = %d %s, want 429 resource_exhausted", code, out)
		}
	})
}

// The generated client over gRPC (HTTP/2) and Connect's binary protocol
// reads what the JSON call wrote.
func TestGRPCClient(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a := w.tenants[0]
		h2 := &http.Client{Transport: &http.Transport{Protocols: unencryptedHTTP2()}}
		for name, opts := range map[string][]connect.ClientOption{"grpc": {connect.WithGRPC()}, "grpc-web": {connect.WithGRPCWeb()}, "connect": nil} {
			c := telhav1connect.NewTemporalServiceClient(h2, w.http.URL, opts...)
			req := connect.NewRequest(&telhav1.GetNodeRequest{Id: a.nodes[0].String()})
			req.Header().Set("Authorization", "Bearer "+a.token)
			resp, err := c.GetNode(context.Background(), req)
			if err != nil || string(resp.Msg.GetVersion().GetValue()) != a.marker {
				t.Fatalf("%s: GetNode = %v, %v", name, resp, err)
			}
			req = connect.NewRequest(&telhav1.GetNodeRequest{Id: a.nodes[0].String()})
			if _, err := c.GetNode(context.Background(), req); connect.CodeOf(err) != connect.CodeUnauthenticated {
				t.Fatalf("%s: GetNode without a token = %v, want unauthenticated", name, err)
			}
		}
	})
}

// unencryptedHTTP2 is the protocols of a client that speaks HTTP/2
// without TLS (gRPC's h2c).
func unencryptedHTTP2() *http.Protocols {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return p
}
