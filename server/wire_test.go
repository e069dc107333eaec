package server

import (
	"bytes"
	"encoding/json"
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
	"telha.dev/vector"
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
	source uuid.UUID // a document, with a fact of nodes[0] from its first passage
	trace  uuid.UUID
	job    uuid.UUID // queued, its payload the marker
	marker string    // in every value the tenant wrote
}

// testModel is the model every wire test registers: one dimension, so
// that the one element the hostile requests put in a list is a vector of
// it.
const testModel = "test-model"

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
// a key and two nodes joined by an edge, each node with a vector of
// testModel (the first [0], the second [1]), a document whose first
// passage the first node was asserted from, a trace of a query that
// returned the nodes, and a queued job.
func newWire(t *testing.T, env *storagetest.Env) *wire {
	t.Helper()
	return newWireOptions(t, env, Options{})
}

// newWireOptions is newWire of a server with opts.
func newWireOptions(t *testing.T, env *storagetest.Env, opts Options) *wire {
	t.Helper()
	srv, err := New(env.Engine, opts)
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
	if _, err := vector.New(env.Engine).RegisterModel(testModel, 1, vector.L2, storage.TimestampOf(time.Now())); err != nil {
		t.Fatal(err)
	}
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
		for i, id := range tn.nodes {
			w.mustCall(t, tok, "telha.v1.VectorService/Upsert", fmt.Sprintf(`{"id":%q,"model":%q,"vector":[%d]}`, id, testModel, i))
		}
		w.mustCall(t, tok, "telha.v1.TemporalService/PutEdge", fmt.Sprintf(`{"id":%q,"from":%q,"to":%q,"type":"knows","value":%q,"validFrom":"2020-01-01T00:00:00Z"}`,
			tn.edge, tn.nodes[0], tn.nodes[1], b64(tn.marker)))
		w.writeSources(t, tn)
		w.tenants = append(w.tenants, tn)
	}
	return w
}

// writeSources gives tn a document with a fact, a trace and a job, each
// holding its marker.
func (w *wire) writeSources(t *testing.T, tn *tenant) {
	t.Helper()
	var put struct{ Source struct{ ID string } }
	decode(t, w.mustCall(t, tn.token, "telha.v1.SourceService/PutSource", fmt.Sprintf(`{"text":%q}`, b64("Minutes of "+tn.marker+": nothing else."))), &put)
	tn.source = uuid.MustParse(put.Source.ID)
	w.mustCall(t, tn.token, "telha.v1.SourceService/RecordFacts", fmt.Sprintf(`{"span":{"source":%q,"start":0,"end":10},
		"facts":[{"kind":"FACT_KIND_NODE","id":%q,"validFrom":"2020-01-01T00:00:00Z","recordedAt":"2020-01-01T00:00:00Z"}]}`, tn.source, tn.nodes[0]))
	var trace struct{ Trace struct{ ID string } }
	decode(t, w.mustCall(t, tn.token, "telha.v1.TraceService/RecordTrace", fmt.Sprintf(`{"trace":{"query":"graph.neighbours","params":{"who":%q},"results":[%q,%q]}}`,
		tn.marker, tn.nodes[0], tn.nodes[1])), &trace)
	tn.trace = uuid.MustParse(trace.Trace.ID)
	var job struct{ Job struct{ ID string } }
	decode(t, w.mustCall(t, tn.token, "telha.v1.JobService/Enqueue", fmt.Sprintf(`{"payload":%q}`, b64(tn.marker))), &job)
	tn.job = uuid.MustParse(job.Job.ID)
}

// decode unmarshals a JSON answer into v.
func decode(t testing.TB, out []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("answer %s: %v", out, err)
	}
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

// codeCase is one call of a table and the HTTP status it must get.
type codeCase struct {
	proc, body string
	want       int
}

// expectCodes makes each call of cases to service with token and fails
// the test for each answer of another status.
func (w *wire) expectCodes(t *testing.T, token, service string, cases []codeCase) {
	t.Helper()
	for _, c := range cases {
		if code, out := w.call(t, token, service+"/"+c.proc, c.body); code != c.want {
			t.Errorf("%s %s = %d %s, want %d", c.proc, c.body, code, out, c.want)
		}
	}
}
