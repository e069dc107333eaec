package server

import "net/http"

// bodyOverhead is what a request's body may hold beyond its message: the
// envelope of gRPC and gRPC-Web (five bytes) and a little slack.
const bodyOverhead = 1 << 10

// boundBody bounds what a request's body takes of the server before any
// handler reads it: at most maxBytes (plus bodyOverhead) as sent, so that
// a compressed body stops at the limit as it arrives rather than after
// Connect has inflated it. Its time is the http.Server's ReadTimeout
// (Run's bodyTimeout).
func boundBody(maxBytes int, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, int64(maxBytes)+bodyOverhead)
		}
		next.ServeHTTP(w, r)
	})
}
