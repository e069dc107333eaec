package server

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"telha.dev/core/storage/storagetest"
)

// JobService in Connect's JSON: a worker claims its tenant's jobs only,
// renews, fails and completes them by the lease Claim returned; a lease
// of a completed job, a made-up lease and another tenant's lease are
// refused, and B's job is untouched by A's calls.
func TestJobJSON(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a, b := w.tenants[0], w.tenants[1]
		type claimed struct {
			Job struct {
				ID       string
				Payload  []byte
				State    string
				Attempts int
			}
			Lease string
		}
		claim := func(token string) claimed {
			var c claimed
			decode(t, w.mustCall(t, token, "telha.v1.JobService/Claim", `{"owner":"worker-1"}`), &c)
			return c
		}
		c := claim(a.token)
		if c.Job.ID != a.job.String() || string(c.Job.Payload) != a.marker || c.Job.State != "JOB_STATE_LEASED" || c.Lease == "" {
			t.Fatalf("A's claim = %+v, want A's job %s leased", c, a.job)
		}
		w.mustCall(t, a.token, "telha.v1.JobService/Heartbeat", fmt.Sprintf(`{"lease":%q}`, c.Lease))
		var failed struct{ Job struct{ State string } }
		decode(t, w.mustCall(t, a.token, "telha.v1.JobService/Fail", fmt.Sprintf(`{"lease":%q,"error":"disk full"}`, c.Lease)), &failed)
		if failed.Job.State != "JOB_STATE_FAILED" {
			t.Errorf("Fail = %+v, want failed, to be retried", failed)
		}
		w.mustCall(t, a.token, "telha.v1.JobService/Enqueue", `{"payload":"bmV4dA==","priority":200,"maxAttempts":2}`)
		next := claim(a.token)
		if string(next.Job.Payload) != "next" {
			t.Fatalf("claim after a failure = %+v, want the new job (the failed one waits out its backoff)", next)
		}
		bs := claim(b.token)
		w.expectCodes(t, a.token, "telha.v1.JobService", []codeCase{
			{"Complete", fmt.Sprintf(`{"lease":%q}`, bs.Lease), http.StatusNotFound},
			{"Heartbeat", fmt.Sprintf(`{"lease":%q}`, bs.Lease), http.StatusNotFound},
			{"Fail", fmt.Sprintf(`{"lease":%q}`, bs.Lease), http.StatusNotFound},
			{"Complete", fmt.Sprintf(`{"lease":%q}`, c.Lease), http.StatusBadRequest},
			{"Complete", `{"lease":"l1.forged"}`, http.StatusBadRequest},
			{"Complete", `{}`, http.StatusBadRequest},
			{"Claim", `{"owner":""}`, http.StatusBadRequest},
			{"Claim", `{"owner":"worker-1"}`, http.StatusNotFound},
			{"Enqueue", `{"priority":256}`, http.StatusBadRequest},
			{"Enqueue", `{"maxAttempts":-1}`, http.StatusBadRequest},
			{"Enqueue", `{"maxAttempts":100000}`, http.StatusTooManyRequests},
			{"Complete", fmt.Sprintf(`{"lease":%q}`, next.Lease), http.StatusOK},
		})
		if out := w.mustCall(t, b.token, "telha.v1.JobService/Complete", fmt.Sprintf(`{"lease":%q}`, bs.Lease)); !bytes.Equal(out, []byte("{}")) {
			t.Errorf("B's Complete of its own lease after A's attempts = %s", out)
		}
	})
}

// A job whose worker went away (its lease expired) is returned to the
// queue by the server's reaper and claimed again.
func TestReapExpiredLeases(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWireOptions(t, env, Options{LeaseDuration: 50 * time.Millisecond})
		a := w.tenants[0]
		first := w.mustCall(t, a.token, "telha.v1.JobService/Claim", `{"owner":"gone"}`)
		ctx, cancel := context.WithCancel(context.Background())
		reaped := make(chan struct{})
		go func() {
			defer close(reaped)
			w.srv.Reap(ctx, 10*time.Millisecond)
		}()
		defer func() {
			cancel()
			<-reaped
		}()
		deadline := time.Now().Add(time.Minute)
		for {
			code, out := w.call(t, a.token, "telha.v1.JobService/Claim", `{"owner":"next"}`)
			if code == http.StatusOK {
				if !bytes.Contains(out, []byte(a.job.String())) || !bytes.Contains(out, []byte(`"attempts":2`)) {
					t.Fatalf("claim after the reaper = %s, want %s on its second attempt (first: %s)", out, a.job, first)
				}
				return
			}
			if code != http.StatusNotFound || time.Now().After(deadline) {
				t.Fatalf("claim while the lease expires = %d %s", code, out)
			}
			wait(20 * time.Millisecond)
		}
	})
}
