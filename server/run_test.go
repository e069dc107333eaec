package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"telha.dev/core/storage"
)

// Run prints the listening line once it serves, answers, and returns nil
// once its context ends.
func TestRunListensAndDrains(t *testing.T) {
	e := storage.NewMemoryEngine()
	defer e.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Run(ctx, e, Config{Listen: "127.0.0.1:0", Stdout: w, Drain: 5 * time.Second}) }()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening 127.0.0.1:") {
		t.Fatalf("first line = %q, %v; want listening 127.0.0.1:PORT", line, err)
	}
	addr := strings.TrimSpace(strings.TrimPrefix(line, "listening "))
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz = %v, %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after its context ended = %v, want nil", err)
	}
}

// Without TLS, Run refuses an address other than loopback unless
// Insecure, and refuses half a TLS configuration.
func TestRunRefuses(t *testing.T) {
	e := storage.NewMemoryEngine()
	defer e.Close()
	for _, tc := range []struct {
		cfg  Config
		want error
	}{
		{Config{Listen: "0.0.0.0:0"}, ErrNotLoopback},
		{Config{Listen: "127.0.0.1:0", TLSCert: "cert.pem"}, ErrBadConfig},
		{Config{Listen: "127.0.0.1:0", TLSCert: "missing.pem", TLSKey: "missing.pem"}, ErrBadConfig},
		{Config{Listen: "nonsense"}, ErrBadConfig},
	} {
		if err := Run(context.Background(), e, tc.cfg); !errors.Is(err, tc.want) {
			t.Errorf("Run(%+v) = %v, want %v", tc.cfg, err, tc.want)
		}
	}
}

// A server needs an engine: New without one is storage.ErrNotOpen.
func TestNewWithoutEngine(t *testing.T) {
	if _, err := New(nil, Options{}); !errors.Is(err, storage.ErrNotOpen) {
		t.Errorf("New(nil) = %v, want storage.ErrNotOpen", err)
	}
}
