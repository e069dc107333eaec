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
	return func(in *invocation) (err error) {
		s, err := in.open(false)
		if err != nil {
			return err
		}
		defer func() { err = s.close(err) }()
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		cfg := server.Config{Listen: *listen, TLSCert: *cert, TLSKey: *key, Insecure: *insecure, Stdout: in.stdout}
		cfg.Logger = slog.New(slog.NewTextHandler(in.stderr, nil))
		if err := server.Run(ctx, s.Engine, cfg); err != nil {
			if errors.Is(err, server.ErrNotLoopback) || errors.Is(err, server.ErrBadConfig) {
				return usagef("serve: %w", err)
			}
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	}
}
