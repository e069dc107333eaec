package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"

	"telha.dev/core/storage"
	"telha.dev/server/gen/telha/v1/telhav1connect"
)

// Both health checks answer without a credential: serving while the
// engine answers, not serving (503 for /healthz) once it does not; gRPC's
// Check knows the server's services and no others.
func TestHealth(t *testing.T) {
	e := storage.NewMemoryEngine()
	srv, err := New(e, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	client := grpchealth.NewClient(hs.Client(), hs.URL)
	check := func(service string) (grpchealth.Status, error) {
		resp, err := client.Check(context.Background(), &grpchealth.CheckRequest{Service: service})
		if err != nil {
			return 0, err
		}
		return resp.Status, nil
	}
	healthz := func() int {
		resp, err := hs.Client().Get(hs.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, service := range []string{"", telhav1connect.TemporalServiceName, telhav1connect.JobServiceName, telhav1connect.SourceServiceName} {
		if st, err := check(service); err != nil || st != grpchealth.StatusServing {
			t.Errorf("Check(%q) = %v, %v, want serving", service, st, err)
		}
	}
	for _, service := range []string{"telha.v1.NoSuchService", "telha.v1.TemporalService/GetNode"} {
		if _, err := check(service); connect.CodeOf(err) != connect.CodeNotFound {
			t.Errorf("Check(%q) = %v, want not_found", service, err)
		}
	}
	if code := healthz(); code != http.StatusOK {
		t.Errorf("GET /healthz = %d, want 200", code)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := check(""); err != nil || st != grpchealth.StatusNotServing {
		t.Errorf("Check after the engine closed = %v, %v, want not serving", st, err)
	}
	if code := healthz(); code != http.StatusServiceUnavailable {
		t.Errorf("GET /healthz after the engine closed = %d, want 503", code)
	}
}
