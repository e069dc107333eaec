package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"telha.dev/server"
)

// serveCommand runs the tenant API (telha.dev/server) on the store until
// SIGINT or SIGTERM, then drains the calls in flight. It prints "listening
// HOST:PORT" on stdout once it serves; logs go to stderr.
func serveCommand(fs *pflag.FlagSet) runner {
	listen := fs.String("listen", "127.0.0.1:7070", "TCP address to listen on; port 0 picks a free one")
	cert := fs.String("tls-cert", "", "PEM certificate file: serve TLS")
	key := fs.String("tls-key", "", "PEM private key file of -tls-cert")
	insecure := fs.Bool("insecure", false, "allow plain text on an address other than loopback")
	concurrency := fs.Int("tenant-concurrency", server.DefaultTenantConcurrency, "calls of one tenant that run at once")
	queue := fs.Int("tenant-queue", server.DefaultTenantQueue, "calls of one tenant that wait for a running slot; 0: none wait")
	rate := fs.Float64("tenant-rate", 0, "calls one tenant starts per second; 0: no bound")
	burst := fs.Int("tenant-burst", 0, "calls of one tenant over -tenant-rate in a burst; 0: a second's worth")
	return func(in *invocation) (err error) {
		bound, err := tenantBound(*concurrency, *queue, *rate, *burst)
		if err != nil {
			return err
		}
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		cfg := server.Config{Listen: *listen, TLSCert: *cert, TLSKey: *key, Insecure: *insecure, Stdout: in.stdout}
		cfg.Logger = slog.New(slog.NewTextHandler(in.stderr, nil))
		cfg.Tenant = bound
		if err := server.Run(ctx, s.Engine, cfg); err != nil {
			if errors.Is(err, server.ErrNotLoopback) || errors.Is(err, server.ErrBadConfig) {
				return usagef("serve: %w", err)
			}
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	}
}

// tenantBound returns the per-tenant bound of the serve flags, or a usage
// error for a value out of range.
func tenantBound(concurrency, queue int, rate float64, burst int) (server.TenantBound, error) {
	if concurrency < 1 || queue < 0 || rate < 0 || burst < 0 {
		return server.TenantBound{}, usagef("serve: -tenant-concurrency must be at least 1, and -tenant-queue, -tenant-rate and -tenant-burst not negative")
	}
	if queue == 0 {
		queue = -1 // TenantBound's zero queue is the default, a negative one none
	}
	return server.TenantBound{Concurrency: concurrency, Queue: queue, Rate: rate, Burst: burst}, nil
}
