// Package server is Telha Core over the network: the tenant API (package
// telha.v1, served with Connect, so one handler speaks gRPC, gRPC-Web and
// Connect's JSON over HTTP/1.1 and HTTP/2), authenticated by API keys
// whose scope is the only scope a request gets.
//
// New builds the handler over an engine; Run serves it on a listener
// until its context ends, then drains the calls in flight. The operator
// CLI's `telha serve` is a thin caller of Run, and `telha key` of the
// credential functions (CreateKey, ListKeys, RevokeKey).
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"telha.dev/core/storage"
	"telha.dev/graph"
	"telha.dev/server/api"
	"telha.dev/server/auth"
	"telha.dev/server/gen/telha/v1/telhav1connect"
	"telha.dev/server/mcp"
	"telha.dev/temporal"
	"telha.dev/vector"
	"telha.dev/vector/bitmap"
)

// ErrNoEngine reports a server without an engine.
var ErrNoEngine = errors.New("no engine")

// Options configure the handler. The zero value serves with the default
// limits and logs nothing.
type Options struct {
	Limits api.Limits
	Logger *slog.Logger
	// Tenant bounds what one tenant's calls take of the server.
	Tenant TenantBound
}

// Server is the tenant API over one engine.
type Server struct {
	engine  storage.Engine
	handler http.Handler
	log     *slog.Logger
}

// New returns the server of the engine e.
func New(e storage.Engine, opts Options) (*Server, error) {
	if e == nil {
		return nil, fmt.Errorf("new server: %w", ErrNoEngine)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	limits := opts.Limits.WithDefaults()
	authn := auth.New(e, log)
	m := newMetrics()
	handlerOpts := callOptions(limits, m, authn, opts.Tenant)
	bitmaps := bitmap.New(e, bitmap.Options{})
	g := graph.Open(e, graph.Options{Indexers: []temporal.Indexer{bitmaps}})
	mux := http.NewServeMux()
	mux.Handle(telhav1connect.NewTemporalServiceHandler(api.NewTemporal(g.Store(), limits, log), handlerOpts))
	mux.Handle(telhav1connect.NewGraphServiceHandler(api.NewGraph(g, limits, log), handlerOpts))
	vectors := vector.New(e)
	mux.Handle(telhav1connect.NewVectorServiceHandler(api.NewVector(e, vectors, bitmaps, limits, log), handlerOpts))
	backends := mcp.Backends{Graph: g, Vectors: vectors, MaxNeighbours: limits.MaxPageSize, MaxK: limits.MaxK}
	mux.Handle("/mcp", authn.Middleware(mcp.Handler(backends, int64(limits.MaxRequestBytes))))
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", health(e))
	return &Server{engine: e, handler: mux, log: log}, nil
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

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

// health answers GET /healthz: 200 "ok" while the engine answers a read,
// 503 otherwise. It needs no credential and tells nothing of any tenant.
func health(e storage.Engine) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, err := ListKeys(e); err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	}
}
