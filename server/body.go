package server

import (
	"io"
	"net/http"
	"time"
)

// bodyOverhead is what a request's body may hold beyond its message: the
// envelope of gRPC and gRPC-Web (five bytes) and a little slack.
const bodyOverhead = 1 << 10

// boundBody bounds what a request's body takes of the server before any
// handler reads it: at most maxBytes (plus bodyOverhead) as sent, so a
// compressed body stops at the limit as it arrives, and all of it within
// timeout of the request's start, so that a client that sends its
// headers and then trickles the body, or stops, does not hold a
// connection and a goroutine for as long as it likes (the server's
// ReadHeaderTimeout ends at the headers). The read deadline is lifted
// once the body has been read to its end, so that it never cuts short a
// handler that runs past it, and a request without a body (a GET) gets
// none.
func boundBody(maxBytes int, timeout time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			// A writer that cannot take deadlines (a test's recorder)
			// keeps the size bound.
			if rc.SetReadDeadline(time.Now().Add(timeout)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
			r.Body = http.MaxBytesReader(w, r.Body, int64(maxBytes)+bodyOverhead)
		}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the request's read deadline when its body ends.
type deadlineBody struct {
	io.ReadCloser
	rc     *http.ResponseController
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
