package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"telha.dev/core/storage"
)

// Errors of Run that refuse its configuration.
var (
	// ErrNotLoopback reports a plain-text listener on an address other
	// than loopback without Insecure: tokens would cross the network in
	// the clear.
	ErrNotLoopback = errors.New("without TLS the server listens on loopback only (set insecure to override)")
	// ErrBadConfig reports a configuration Run cannot use.
	ErrBadConfig = errors.New("bad server configuration")
)

// Config is what Run serves, and how.
type Config struct {
	Options
	// Listen is the TCP address, as net.Listen takes it; port 0 picks a
	// free one.
	Listen string
	// TLSCert and TLSKey are PEM files; both or neither.
	TLSCert, TLSKey string
	// Insecure allows plain text on an address other than loopback.
	Insecure bool
	// Stdout receives the line "listening HOST:PORT" once the server
	// accepts connections.
	Stdout io.Writer
	// Drain bounds how long a stop waits for the calls in flight; 0 means
	// 30 seconds.
	Drain time.Duration
}

// bodyTimeout is the http.Server's ReadTimeout for a call timeout: a
// request's headers and body must arrive within it, so that a client that
// trickles its body, or stops, is answered and let go rather than hold a
// connection and a goroutine for as long as it likes (ReadHeaderTimeout
// ends at the headers). Twice the call timeout, since a call's own
// timeout starts once its body is read, and on HTTP/1.1 the server ends
// a request still running past its ReadTimeout: a call that reads its
// body in time is never cut short by it, since no call runs longer than
// the call timeout (the RPCs' deadline, the tool calls' middleware).
func bodyTimeout(call time.Duration) time.Duration { return 2 * call }

// Run serves the tenant API of e until ctx ends, then stops
// accepting, waits for the calls in flight (at most cfg.Drain), and
// returns nil; or returns the error that stopped it.
func Run(ctx context.Context, e storage.Engine, cfg Config) error {
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return fmt.Errorf("%w: give both a TLS certificate and its key, or neither", ErrBadConfig)
	}
	s, err := New(e, cfg.Options)
	if err != nil {
		return err
	}
	var tlsConfig *tls.Config
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBadConfig, err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("%w: listen on %q: %w", ErrBadConfig, cfg.Listen, err)
	}
	if tlsConfig == nil && !cfg.Insecure && !loopback(ln.Addr()) {
		_ = ln.Close()
		return fmt.Errorf("listen on %s: %w", ln.Addr(), ErrNotLoopback)
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	if tlsConfig == nil {
		protocols.SetUnencryptedHTTP2(true)
	}
	hs := &http.Server{
		Handler:           s.Handler(),
		Protocols:         protocols,
		TLSConfig:         tlsConfig,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       bodyTimeout(cfg.Limits.WithDefaults().CallTimeout),
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			served <- hs.ServeTLS(ln, "", "")
		} else {
			served <- hs.Serve(ln)
		}
	}()
	// The reaper stops before Run returns: the caller closes the engine.
	reapCtx, stopReaping := context.WithCancel(ctx)
	reaped := make(chan struct{})
	go func() {
		defer close(reaped)
		s.Reap(reapCtx, ReapInterval)
	}()
	defer func() {
		stopReaping()
		<-reaped
	}()
	s.log.Info("serving", slog.String("addr", ln.Addr().String()), slog.Bool("tls", tlsConfig != nil))
	if cfg.Stdout != nil {
		fmt.Fprintf(cfg.Stdout, "listening %s\n", ln.Addr())
	}
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	drain := cfg.Drain
	if drain <= 0 {
		drain = 30 * time.Second
	}
	s.log.Info("draining", slog.Duration("within", drain))
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("drain: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	s.log.Info("stopped")
	return nil
}

// loopback reports whether a is a loopback address.
func loopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}
