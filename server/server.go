// Package server is Telha Core over the network: the tenant API (package
// telha.v1, served with Connect, so one handler speaks gRPC, gRPC-Web and
// Connect's JSON over HTTP/1.1 and HTTP/2), authenticated by API keys
// whose scope is the only scope a request gets.
//
// New builds the handler over an engine; Run serves it on a listener
// until its context ends, then drains the calls in flight. The operator
// CLI's `telha serve` is a thin caller of Run, and `telha key` of the
// credential functions (CreateKey, ListKeys, RevokeKey).
//
// A call is authenticated before Connect reads its body, and again when
// it starts to run long after that (its body was slow, or it waited for
// its tenant's slot; the MCP tools, which only read, are checked at their
// slot). The time between the last check and the call's own write is
// closed by the store: every write of a tenant's rows is fenced on the
// tenant's registry row (tenants.RequireWritable), so a write that passed
// its check while an erasure or an import of its tenant began elsewhere
// (another process on a shared etcd store) is refused, as
// FailedPrecondition, rather than landing after the erasure's deletion.
package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"telha.dev/core/storage"
	"telha.dev/graph"
	"telha.dev/jobs"
	"telha.dev/server/api"
	"telha.dev/server/auth"
	"telha.dev/server/gen/telha/v1/telhav1connect"
	"telha.dev/server/mcp"
	"telha.dev/sources"
	"telha.dev/temporal"
	"telha.dev/vector"
	"telha.dev/vector/bitmap"
)

// Options configure the handler. The zero value serves with the default
// limits and logs nothing.
type Options struct {
	Limits api.Limits
	Logger *slog.Logger
	// Tenant bounds what one tenant's calls take of the server.
	Tenant TenantBound
	// LeaseDuration is how long a job's claim holds without a heartbeat;
	// 0 means jobs.DefaultLeaseDuration.
	LeaseDuration time.Duration
}

// Server is the tenant API over one engine.
type Server struct {
	engine  storage.Engine
	handler http.Handler
	log     *slog.Logger
	jobs    *jobs.Store
	tenants *tenantLimit
}

// New returns the server of the engine e.
func New(e storage.Engine, opts Options) (*Server, error) {
	if e == nil {
		return nil, fmt.Errorf("new server: %w", storage.ErrNotOpen)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	limits := opts.Limits.WithDefaults()
	authn := auth.New(e, log)
	m := newMetrics()
	tenants := newTenantLimit(opts.Tenant)
	handlerOpts := callOptions(limits, m, authn, tenants)
	bitmaps := bitmap.New(e, bitmap.Options{})
	g := graph.Open(e, graph.Options{Indexers: []temporal.Indexer{bitmaps}})
	mux := http.NewServeMux()
	health := newHealth(e)
	// Every request's body is bounded before a handler reads it; every
	// call of the tenant API is authenticated before Connect reads it.
	body := func(h http.Handler) http.Handler { return boundBody(limits.MaxRequestBytes, h) }
	serve := func(path string, h http.Handler) {
		mux.Handle(path, body(authn.RPCMiddleware(h, m.refused(path))))
		health.services[strings.Trim(path, "/")] = true
	}
	serve(telhav1connect.NewTemporalServiceHandler(api.NewTemporal(g.Store(), limits, log), handlerOpts))
	serve(telhav1connect.NewGraphServiceHandler(api.NewGraph(g, limits, log), handlerOpts))
	vectors := vector.New(e)
	serve(telhav1connect.NewVectorServiceHandler(api.NewVector(e, vectors, bitmaps, limits, log), handlerOpts))
	docs := sources.Open(e, sources.Options{})
	serve(telhav1connect.NewSourceServiceHandler(api.NewSource(docs, limits, log), handlerOpts))
	serve(telhav1connect.NewTraceServiceHandler(api.NewTrace(docs, limits, log), handlerOpts))
	queues, err := jobs.NewStore(e, jobs.Options{Durable: true, LeaseDuration: opts.LeaseDuration})
	if err != nil {
		return nil, fmt.Errorf("new server: %w", err)
	}
	serve(telhav1connect.NewJobServiceHandler(api.NewJob(queues, limits, log), handlerOpts))
	healthPath, healthHandler := grpchealth.NewHandler(health, connect.WithReadMaxBytes(maxHealthBytes))
	mux.Handle(healthPath, boundBody(maxHealthBytes, healthHandler))
	backends := mcp.Backends{Graph: g, Vectors: vectors, Sources: docs, MaxNeighbours: limits.MaxPageSize, MaxK: limits.MaxK}
	mux.Handle("/mcp", body(authn.Middleware(tenants.middleware(authn, limits.CallTimeout, mcp.Handler(backends, int64(limits.MaxRequestBytes))))))
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", health.serveHTTP)
	return &Server{engine: e, handler: mux, log: log, jobs: queues, tenants: tenants}, nil
}

// maxHealthBytes bounds a health check's request, which anyone may send:
// its one field is a service name.
const maxHealthBytes = 1 << 10

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// ReapInterval is how often a running server returns the jobs of expired
// leases (workers that went away) to their queues.
const ReapInterval = time.Second

// Reap returns the jobs of expired leases to their queues every interval
// until ctx ends; Run runs it beside the listener. It logs a failed pass
// and goes on: one damaged row must not stop the reaping of every tenant.
func (s *Server) Reap(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.jobs.Reap(); err != nil {
				s.log.Error("reap expired leases", slog.String("error", err.Error()))
			}
		}
	}
}

// deadline bounds every call by the limits' CallTimeout.
func deadline(l api.Limits) connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			ctx, cancel := context.WithTimeout(ctx, l.CallTimeout)
			defer cancel()
			return next(ctx, req)
		}
	})
}
