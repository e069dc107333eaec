package server

import (
	"context"
	"time"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the server's Prometheus metrics: calls, errors and latency
// per procedure, labelled by the Connect code. They never carry a token,
// a key id or a tenant.
type metrics struct {
	registry *prometheus.Registry
	calls    *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "telha_rpc_calls_total", Help: "Calls of the tenant API, by procedure and Connect code (ok for a success).",
		}, []string{"procedure", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "telha_rpc_duration_seconds", Help: "Latency of the tenant API's calls, by procedure.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 18),
		}, []string{"procedure"}),
	}
	m.registry.MustRegister(m.calls, m.latency)
	return m
}

// refused returns what the authentication middleware of the service at
// path tells of each call it refuses: a call counted under the service's
// path, not the procedure, since an anonymous client names any path it
// likes and the labels must stay few.
func (m *metrics) refused(path string) func(error) {
	return func(err error) {
		m.calls.WithLabelValues(path, connect.CodeOf(err).String()).Inc()
	}
}

// interceptor records every call that passed the authentication
// middleware, refused ones included.
func (m *metrics) interceptor() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			start := time.Now()
			resp, err := next(ctx, req)
			proc := req.Spec().Procedure
			code := "ok"
			if err != nil {
				code = connect.CodeOf(err).String()
			}
			m.calls.WithLabelValues(proc, code).Inc()
			m.latency.WithLabelValues(proc).Observe(time.Since(start).Seconds())
			return resp, err
		}
	})
}
