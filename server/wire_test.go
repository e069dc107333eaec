package server

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
)

// tenant is one tenant of a wire test: its scope, a token, and the ids of
// what it holds.
type tenant struct {
	name   string
	scope  storage.TenantScope
	key    Key
	token  string
	nodes  []uuid.UUID
	edge   uuid.UUID
	marker string // in every value the tenant wrote
}

// wire is a server on an engine of the matrix, served over HTTP/1.1 and
// unencrypted HTTP/2, with three tenants that hold data.
type wire struct {
	env     *storagetest.Env
	srv     *Server
	http    *httptest.Server
	client  *http.Client
	tenants []*tenant
}

// newWire starts a server on env's engine with three tenants, each with
// a key and two nodes joined by an edge.
func newWire(t *testing.T, env *storagetest.Env) *wire {
	t.Helper()
	srv, err := New(env.Engine, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetHTTP1(true)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	t.Cleanup(hs.Close)
	w := &wire{env: env, srv: srv, http: hs, client: hs.Client()}
	for i, s := range storagetest.TenantScopes(t, 3) {
		name := fmt.Sprintf("tenant-%c", 'a'+i)
		if _, err := lifecycle.Provision(env.Engine, s, name); err != nil {
			t.Fatal(err)
		}
		k, tok, err := CreateKey(env.Engine, name, "test", 0)
		if err != nil {
			t.Fatal(err)
		}
		tn := &tenant{name: name, scope: s, key: k, token: tok, marker: fmt.Sprintf("SECRET-OF-%s-%s", name, uuid.NewString()[:8])}
		tn.nodes = []uuid.UUID{uuid.New(), uuid.New()}
		tn.edge = uuid.New()
		for _, id := range tn.nodes {
			w.mustCall(t, tok, "telha.v1.TemporalService/PutNode", fmt.Sprintf(`{"id":%q,"value":%q,"validFrom":"2020-01-01T00:00:00Z","labels":["Person"]}`, id, b64(tn.marker)))
		}
		w.mustCall(t, tok, "telha.v1.TemporalService/PutEdge", fmt.Sprintf(`{"id":%q,"from":%q,"to":%q,"type":"knows","value":%q,"validFrom":"2020-01-01T00:00:00Z"}`,
			tn.edge, tn.nodes[0], tn.nodes[1], b64(tn.marker)))
		w.tenants = append(w.tenants, tn)
	}
	return w
}

// call posts body (Connect's JSON) to the procedure with token (none if
// empty) and returns the status and the body of the answer.
func (w *wire) call(t testing.TB, token, procedure, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, w.http.URL+"/"+procedure, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", procedure, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// mustCall is call that fails the test unless the answer is 200.
func (w *wire) mustCall(t testing.TB, token, procedure, body string) []byte {
	t.Helper()
	code, out := w.call(t, token, procedure, body)
	if code != http.StatusOK {
		t.Fatalf("%s %s = %d %s", procedure, body, code, out)
	}
	return out
}

// b64 is s as JSON's bytes: standard base64.
func b64(s string) string { return base64Std([]byte(s)) }

// tenantRows returns every row of scope in e, for before-and-after
// comparisons.
func tenantRows(t testing.TB, e storage.Reader, scope storage.TenantScope) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, r := range storage.TenantRanges(scope) {
		for kv, err := range e.Scan(r) {
			if err != nil {
				t.Fatal(err)
			}
			b.Write(kv.Key)
			b.Write(kv.Value)
		}
	}
	return b.Bytes()
}

// wait sleeps past d: a key's expiry is wall-clock time.
func wait(d time.Duration) { time.Sleep(d) }
