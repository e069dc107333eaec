package server

import (
	"connectrpc.com/connect"

	"telha.dev/server/api"
	"telha.dev/server/auth"
)

// compressMinBytes is the smallest answer compressed for a client that
// accepts gzip. Connect compresses every answer by default, and for a
// point read of a hundred bytes the gzip writer's reset alone cost more
// than the read and the authentication together (a CPU profile of
// BenchmarkGetNode over the wire); below a kilobyte compression saves
// next to no bytes.
const compressMinBytes = 1 << 10

// callOptions returns the handler options of every service: the
// interceptors in the order a call meets them (metrics, which see every
// refusal past the authentication middleware; authentication, the check
// of last resort; the deadline, which also bounds the wait for a tenant's
// slot; the tenant's bound), the request size limit and the compression
// threshold.
func callOptions(limits api.Limits, m *metrics, authn *auth.Authenticator, tenant *tenantLimit) connect.HandlerOption {
	return connect.WithHandlerOptions(
		connect.WithInterceptors(m.interceptor(), authn.Interceptor(), deadline(limits), tenant.interceptor(authn)),
		connect.WithReadMaxBytes(limits.MaxRequestBytes),
		connect.WithCompressMinBytes(compressMinBytes),
	)
}
