package server

import (
	"context"
	"errors"
	"net/http"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"

	"telha.dev/core/storage"
)

// health answers the two health checks of the server, neither of which
// needs a credential or reads a row of any tenant: GET /healthz, for
// HTTP probes, and gRPC's health protocol (grpc.health.v1.Health/Check),
// for gRPC probes and load balancers. Both say serving while the engine
// opens a snapshot (on etcd, a read of the cluster), at the same cost
// whatever the store holds.
type health struct {
	engine storage.Engine
	// services are the services the server serves, by full name: a
	// Check of another is not_found, as the protocol asks.
	services map[string]bool
}

func newHealth(e storage.Engine) *health {
	return &health{engine: e, services: map[string]bool{}}
}

// answers reports whether the engine answers.
func (h *health) answers() bool {
	snap, err := h.engine.Snapshot()
	if err != nil {
		return false
	}
	_ = snap.Close()
	return true
}

// serveHTTP answers GET /healthz: 200 "ok", or 503.
func (h *health) serveHTTP(w http.ResponseWriter, _ *http.Request) {
	if !h.answers() {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// Check answers grpc.health.v1.Health/Check for the whole server (the
// empty name) or one of its services.
func (h *health) Check(_ context.Context, req *grpchealth.CheckRequest) (*grpchealth.CheckResponse, error) {
	if req.Service != "" && !h.services[req.Service] {
		return nil, connect.NewError(connect.CodeNotFound, errors.New("no such service"))
	}
	if !h.answers() {
		return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
	}
	return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
}
