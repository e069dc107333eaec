package server

import (
	"context"
	"errors"
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

// waiting returns how many calls of scope wait for a running slot.
func (l *tenantLimit) waiting(scope storage.TenantScope) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if t := l.tenants[scope]; t != nil {
		return t.waiting
	}
	return 0
}

// The bound of running calls and the queue: a tenant at its bound waits
// while its queue has room and is refused beyond it, a waiting call runs
// when a running one ends, and another tenant is served throughout; a
// tenant's share is dropped once idle.
func TestTenantLimitConcurrency(t *testing.T) {
	scopes := storagetest.TenantScopes(t, 2)
	a, b := scopes[0], scopes[1]
	for _, tc := range []struct {
		name  string
		bound TenantBound
		queue int // the calls of a that may wait
	}{
		{"no queue", TenantBound{Concurrency: 1, Queue: -1}, 0},
		{"queue of 2", TenantBound{Concurrency: 1, Queue: 2}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newTenantLimit(tc.bound)
			ctx := context.Background()
			release, _, err := l.acquire(ctx, a)
			if err != nil {
				t.Fatalf("a's first call: %v", err)
			}
			admitted := make(chan func(), tc.queue)
			for w := range tc.queue {
				go func() {
					r, _, err := l.acquire(ctx, a)
					if err != nil {
						t.Errorf("a's waiting call: %v", err)
					}
					admitted <- r
				}()
				for l.waiting(a) != w+1 {
					time.Sleep(time.Millisecond)
				}
			}
			if _, _, err := l.acquire(ctx, a); !errors.Is(err, errBusy) {
				t.Fatalf("a's call beyond its bound and queue: %v, want errBusy", err)
			}
			releaseB, _, err := l.acquire(ctx, b)
			if err != nil {
				t.Fatalf("b's call while a is at its bound: %v", err)
			}
			releaseB()
			release()
			for range tc.queue {
				r := <-admitted
				if r != nil {
					r()
				}
			}
			if len(l.tenants) != 0 {
				t.Errorf("%d tenant shares left after every call ended", len(l.tenants))
			}
		})
	}
}

// A call waiting for a slot ends with its context, and leaves the queue.
func TestTenantLimitWaitEndsWithContext(t *testing.T) {
	a := storagetest.TenantScopes(t, 1)[0]
	l := newTenantLimit(TenantBound{Concurrency: 1, Queue: 1})
	release, _, err := l.acquire(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, _, err := l.acquire(ctx, a); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a waiting call past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if n := l.waiting(a); n != 0 {
		t.Errorf("%d calls still waiting", n)
	}
	release()
}

// The rate bound: a tenant past its burst is refused until its bucket
// refills, another tenant is served.
func TestTenantLimitRate(t *testing.T) {
	scopes := storagetest.TenantScopes(t, 2)
	a, b := scopes[0], scopes[1]
	l := newTenantLimit(TenantBound{Rate: 1e-9, Burst: 2}) // no refill within the test
	for i := range 2 {
		release, _, err := l.acquire(context.Background(), a)
		if err != nil {
			t.Fatalf("a's call %d within its burst: %v", i, err)
		}
		release()
	}
	if _, _, err := l.acquire(context.Background(), a); !errors.Is(err, errRate) {
		t.Fatalf("a's call past its burst: %v, want errRate", err)
	}
	release, _, err := l.acquire(context.Background(), b)
	if err != nil {
		t.Fatalf("b's call while a is over its rate: %v", err)
	}
	release()
}

// Over the wire: a tenant over its bound gets resource_exhausted (HTTP
// 429) while another tenant is served, and one bound holds the RPCs and
// the MCP endpoint's tool calls together.
func TestTenantBoundOverTheWire(t *testing.T) {
	e := engineOf(t, "memory")
	srv, err := New(e, Options{Tenant: TenantBound{Rate: 1e-9, Burst: 1}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	w := &wire{http: hs, client: hs.Client()}
	_, tokens := tenantsWithKeys(t, e, "bound", 2)
	get := fmt.Sprintf(`{"id":%q}`, uuid.New())
	for _, c := range []struct {
		who  string
		tok  string
		mcp  bool
		want int
	}{
		{"a's first call", tokens[0], false, http.StatusNotFound},
		{"a's call over its rate", tokens[0], false, http.StatusTooManyRequests},
		{"a's tool call over its rate", tokens[0], true, http.StatusTooManyRequests},
		{"b's first tool call", tokens[1], true, http.StatusOK},
		{"b's call after its tool call", tokens[1], false, http.StatusTooManyRequests},
	} {
		call := func() (int, []byte) { return w.call(t, c.tok, "telha.v1.TemporalService/GetNode", get) }
		if c.mcp {
			call = func() (int, []byte) { return w.mcpCall(t, c.tok, "tools/list", `{}`) }
		}
		code, out := call()
		if code != c.want {
			t.Errorf("%s = %d %s, want %d", c.who, code, out, c.want)
		}
		if c.want == http.StatusTooManyRequests && !c.mcp && !strings.Contains(string(out), "resource_exhausted") {
			t.Errorf("%s answered %s, want the code resource_exhausted", c.who, out)
		}
	}
}

// A call that waited for its tenant's slot checks its credential again
// when it gets it: a write authenticated before the tenant's erasure, or
// its key's revocation, and queued behind the tenant's running calls,
// must not land after them (the erasure counted the tenant's rows to
// zero, and a row written after it would outlive a verified erasure).
func TestQueuedCallsCheckTheirCredentialAgain(t *testing.T) {
	for _, c := range []struct {
		what   string
		revoke func(e storage.Engine, scope storage.TenantScope, key uuid.UUID) error
	}{
		{"erased", func(e storage.Engine, scope storage.TenantScope, _ uuid.UUID) error {
			_, err := lifecycle.EraseTenant(e, scope, lifecycle.EraseOptions{})
			return err
		}},
		{"revoked", func(e storage.Engine, _ storage.TenantScope, key uuid.UUID) error {
			_, err := RevokeKey(e, key.String())
			return err
		}},
	} {
		t.Run(c.what, func(t *testing.T) {
			l := newLeaving(t, Options{Tenant: TenantBound{Concurrency: 1}})
			w := &wire{http: l.hs, client: l.hs.Client()}
			release, _, err := l.srv.tenants.acquire(context.Background(), l.scope)
			if err != nil {
				t.Fatal(err)
			}
			type answer struct {
				code int
				out  []byte
			}
			answered := make(chan answer, 1)
			go func() {
				code, out := w.call(t, l.token, "telha.v1.TraceService/RecordTrace", `{"trace":{"query":"late","params":{"who":"SECRET"}}}`)
				answered <- answer{code, out}
			}()
			for l.srv.tenants.waiting(l.scope) == 0 {
				time.Sleep(time.Millisecond)
			}
			if err := c.revoke(l.e, l.scope, l.key.ID); err != nil {
				t.Fatal(err)
			}
			release()
			if a := <-answered; a.code != http.StatusUnauthorized {
				t.Errorf("the queued write after its tenant was %s = %d %s, want 401", c.what, a.code, a.out)
			}
			if c.what == "erased" {
				l.assertEmpty(t)
			}
		})
	}
}

// A call whose body arrives long after its headers were authenticated
// checks its credential again before it runs: a write whose tenant was
// erased while its body was on the way must not land after the erasure.
func TestSlowCallsCheckTheirCredentialAgain(t *testing.T) {
	l := newLeaving(t, Options{})
	body, send := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, l.hs.URL+"/telha.v1.TraceService/RecordTrace", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+l.token)
	answered := make(chan int, 1)
	go func() {
		resp, err := l.hs.Client().Do(req)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	if _, err := io.WriteString(send, `{"trace":{"query":"late",`); err != nil {
		t.Fatal(err)
	}
	// Past recheckAfter: the headers were authenticated meanwhile, or the
	// erasure comes first and the first check refuses; either way the
	// write must not land.
	time.Sleep(3 * recheckAfter)
	if _, err := lifecycle.EraseTenant(l.e, l.scope, lifecycle.EraseOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(send, `"params":{"who":"SECRET"}}}`); err != nil {
		t.Fatal(err)
	}
	send.Close()
	if code := <-answered; code != http.StatusUnauthorized {
		t.Errorf("a write whose tenant was erased while its body arrived = %d, want 401", code)
	}
	l.assertEmpty(t)
}

// leaving is a server on a memory engine with one tenant, about to go,
// and a key of it.
type leaving struct {
	e     storage.Engine
	srv   *Server
	hs    *httptest.Server
	scope storage.TenantScope
	key   Key
	token string
}

func newLeaving(t *testing.T, opts Options) *leaving {
	t.Helper()
	l := &leaving{e: engineOf(t, "memory"), scope: storagetest.TenantScopes(t, 1)[0]}
	var err error
	if l.srv, err = New(l.e, opts); err != nil {
		t.Fatal(err)
	}
	l.hs = httptest.NewServer(l.srv.Handler())
	t.Cleanup(l.hs.Close)
	if _, err := lifecycle.Provision(l.e, l.scope, "leaving"); err != nil {
		t.Fatal(err)
	}
	if l.key, l.token, err = CreateKey(l.e, "leaving", "", 0); err != nil {
		t.Fatal(err)
	}
	return l
}

// assertEmpty fails t if the tenant holds a row: after its erasure, no
// late write may have landed.
func (l *leaving) assertEmpty(t *testing.T) {
	t.Helper()
	counts, err := lifecycle.Verify(l.e, l.scope)
	if err != nil {
		t.Fatal(err)
	}
	for _, fc := range counts {
		if fc.Rows != 0 {
			t.Errorf("after the erasure, %v holds %d rows of the tenant", fc.Family, fc.Rows)
		}
	}
}

// A write that passed every check of its credential while an erasure of
// its tenant began is refused by the store, as failed_precondition, and
// leaves no row: for each subsystem a write of the API reaches.
func TestWritesRacingAnErasureAreRefused(t *testing.T) {
	for _, c := range []struct{ procedure, body string }{
		{"telha.v1.TemporalService/PutNode", fmt.Sprintf(`{"id":%q,"value":"bGF0ZQ=="}`, uuid.New())},
		{"telha.v1.TraceService/RecordTrace", `{"trace":{"query":"late","params":{"who":"SECRET"}}}`},
		{"telha.v1.SourceService/PutSource", `{"text":"bGF0ZQ=="}`},
		{"telha.v1.JobService/Enqueue", `{"payload":"bGF0ZQ==","priority":1,"maxAttempts":1}`},
	} {
		t.Run(c.procedure, func(t *testing.T) {
			l := newLeaving(t, Options{})
			e := &storagetest.RacingWriter{Engine: l.e}
			srv, err := New(e, Options{})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv.Handler())
			t.Cleanup(hs.Close)
			var eraseErr error
			e.Arm(func() { _, eraseErr = lifecycle.EraseTenant(l.e, l.scope, lifecycle.EraseOptions{}) })
			code, out := (&wire{http: hs, client: hs.Client()}).call(t, l.token, c.procedure, c.body)
			if eraseErr != nil {
				t.Fatal(eraseErr)
			}
			if e.Armed() {
				t.Fatalf("%s wrote nothing (%d %s)", c.procedure, code, out)
			}
			if !strings.Contains(string(out), `"code":"failed_precondition"`) {
				t.Errorf("%s racing an erasure = %d %s, want failed_precondition", c.procedure, code, out)
			}
			l.assertEmpty(t)
		})
	}
}
