package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os/signal"
	"strings"
	"syscall"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/cluster"
	"telha.dev/server"
)

const serveUsage = "usage: telha serve (-data DIR | -etcd ENDPOINTS [-namespace NS]) [-listen ADDR] [-tls-cert FILE -tls-key FILE] [-insecure]"

// serve runs the tenant API (telha.dev/server) on the store until SIGINT
// or SIGTERM, then drains the calls in flight. It prints "listening
// HOST:PORT" on stdout once it serves; logs go to stderr.
func serve(args []string, stdout, stderr io.Writer) (err error) {
	flags := flag.NewFlagSet("serve", flag.ContinueOnError)
	dataDir := flags.String("data", "", "directory of the embedded RocksDB store")
	endpoints := flags.String("etcd", "", "comma-separated endpoints of an etcd cluster to serve instead of RocksDB")
	namespace := flags.String("namespace", demoNamespace, "the etcd namespace of the store (with -etcd)")
	listen := flags.String("listen", "127.0.0.1:7070", "TCP address to listen on; port 0 picks a free one")
	cert := flags.String("tls-cert", "", "PEM certificate file: serve TLS")
	key := flags.String("tls-key", "", "PEM private key file of -tls-cert")
	insecure := flags.Bool("insecure", false, "allow plain text on an address other than loopback")
	if err := parseFlags(flags, args, serveUsage, stdout); err != nil {
		return err
	}
	if flags.NArg() != 0 || (*dataDir == "") == (*endpoints == "") {
		return usagef("serve: give -data or -etcd (%s)", serveUsage)
	}
	var e storage.Engine
	if *endpoints != "" {
		ee, err := etcd.Open(etcd.Config{Endpoints: strings.Split(*endpoints, ","), Namespace: *namespace,
			MaxTxnOps: cluster.DefaultMaxTxnOps, MaxRequestBytes: cluster.DefaultMaxRequestBytes})
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer func() { err = errors.Join(err, ee.Close()) }()
		if err := resume("serve", ee, stderr); err != nil {
			return err
		}
		e = ee
	} else {
		st, err := openStore("serve", *dataDir, false, stderr)
		if err != nil {
			return err
		}
		defer func() { err = st.close(err) }()
		e = st
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cfg := server.Config{Listen: *listen, TLSCert: *cert, TLSKey: *key, Insecure: *insecure, Stdout: stdout}
	cfg.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	if err := server.Run(ctx, e, cfg); err != nil {
		if errors.Is(err, server.ErrNotLoopback) || errors.Is(err, server.ErrBadConfig) {
			return usagef("serve: %w", err)
		}
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
