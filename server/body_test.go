package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"telha.dev/core/storage"
	"telha.dev/server/api"
)

// countingBody is a request body that counts what the server reads of it.
type countingBody struct {
	r    io.Reader
	read int
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += n
	return n, err
}

func (b *countingBody) Close() error { return nil }

// gzipped returns n bytes of zeros compressed, about a thousandth of n:
// what a decompression bomb sends.
func gzipped(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serveCounted serves one request with body to h in process and returns
// the answer and how much of the body was read.
func serveCounted(h http.Handler, path, contentType, token string, body []byte) (*httptest.ResponseRecorder, int) {
	b := &countingBody{r: bytes.NewReader(body)}
	req := httptest.NewRequest(http.MethodPost, path, nil)
	req.Body = b
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("Grpc-Encoding", "gzip")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec, b.read
}

// A call without a valid credential is refused before a byte of its body
// is read, in the protocol it speaks: connect-go decodes a request before
// its interceptors run, and a few kilobytes of gzip could make the server
// build millions of messages for an anonymous client.
func TestAnonymousCallsReadNoBody(t *testing.T) {
	srv, err := New(storage.NewMemoryEngine(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	bomb := gzipped(t, 64<<20)
	for _, c := range []struct {
		contentType string
		grpc        bool
	}{
		{"application/json", false},
		{"application/proto", false},
		{"application/grpc", true},
		{"application/grpc+proto", true},
		{"application/grpc-web+proto", true},
	} {
		for _, token := range []string{"", "telha_not-a-key", "Basic abc"} {
			rec, read := serveCounted(srv.Handler(), "/telha.v1.SourceService/RecordFacts", c.contentType, token, bomb)
			if read != 0 {
				t.Errorf("%s, token %q: the server read %d bytes of the body", c.contentType, token, read)
			}
			if c.grpc {
				if got := rec.Header().Get("Grpc-Status"); got != "16" {
					t.Errorf("%s, token %q: grpc-status %q, want 16 (unauthenticated)", c.contentType, token, got)
				}
				continue
			}
			if rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"unauthenticated"`) {
				t.Errorf("%s, token %q: %d %s, want 401 unauthenticated", c.contentType, token, rec.Code, rec.Body)
			}
		}
	}
}

// The health check, which anyone may call, reads a bounded body however
// it is compressed; so does every call of the tenant API, at its limit.
func TestBodiesAreBounded(t *testing.T) {
	e := storage.NewMemoryEngine()
	const maxRequest = 64 << 10
	srv, err := New(e, Options{Limits: api.Limits{MaxRequestBytes: maxRequest}})
	if err != nil {
		t.Fatal(err)
	}
	_, tokens := tenantsWithKeys(t, e, "bounded", 1)
	noise := make([]byte, 1<<20)
	if _, err := rand.Read(noise); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, path, token string
		body              []byte
		limit             int
	}{
		{"a health check of 64 MiB as gzip", "/grpc.health.v1.Health/Check", "", gzipped(t, 64<<20), maxHealthBytes},
		{"a health check of 1 MiB of noise", "/grpc.health.v1.Health/Check", "", noise, maxHealthBytes},
		{"a call of 1 MiB of noise", "/telha.v1.SourceService/RecordFacts", tokens[0], noise, maxRequest},
	} {
		rec, read := serveCounted(srv.Handler(), c.path, "application/proto", c.token, c.body)
		if read > c.limit+bodyOverhead+1 {
			t.Errorf("%s: the server read %d bytes, want at most %d", c.what, read, c.limit+bodyOverhead+1)
		}
		if rec.Code == http.StatusOK {
			t.Errorf("%s: answered 200 %s, want a refusal", c.what, rec.Body)
		}
	}
}

// A client that sends its headers and then trickles its body, or stops,
// is answered and let go within the body timeout, with a credential or
// without: it cannot hold a connection for as long as it likes.
func TestSlowBodiesAreCut(t *testing.T) {
	e := storage.NewMemoryEngine()
	_, tokens := tenantsWithKeys(t, e, "slow", 1)
	const timeout = 300 * time.Millisecond
	addr := serveOnLoopback(t, e, Config{Options: Options{Limits: api.Limits{CallTimeout: timeout}}})
	for _, token := range []string{"", tokens[0]} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		auth := ""
		if token != "" {
			auth = "Authorization: Bearer " + token + "\r\n"
		}
		fmt.Fprintf(c, "POST /telha.v1.TemporalService/GetNode HTTP/1.1\r\nHost: telha\r\nContent-Type: application/json\r\n%sContent-Length: 1000\r\n\r\n{", auth)
		// Far past the server's bound, so that only a server that holds
		// the connection fails the test.
		if err := c.SetReadDeadline(time.Now().Add(60 * timeout)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("token %q: no answer to a body that never came: %v", token, err)
		} else {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Errorf("token %q: a body that never came answered 200", token)
			}
		}
		c.Close()
	}
}

// serveOnLoopback runs the server of e on a free loopback port until the
// test ends and returns its address.
func serveOnLoopback(t *testing.T, e storage.Engine, cfg Config) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan string, 1)
	cfg.Listen = "127.0.0.1:0"
	cfg.Stdout = lineWriter(func(line string) {
		if addr, ok := strings.CutPrefix(line, "listening "); ok {
			listening <- strings.TrimSpace(addr)
		}
	})
	done := make(chan error, 1)
	go func() { done <- Run(ctx, e, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	select {
	case addr := <-listening:
		return addr
	case err := <-done:
		t.Fatalf("run: %v", err)
		return ""
	}
}

// lineWriter calls its function with each write.
type lineWriter func(string)

func (f lineWriter) Write(p []byte) (int, error) {
	f(string(p))
	return len(p), nil
}
