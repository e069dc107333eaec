package etcd

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Config says which cluster an engine uses and how.
type Config struct {
	// Endpoints are the client URLs of the cluster's members, such as
	// "127.0.0.1:2379" or "http://127.0.0.1:2379". Required. The client
	// balances calls over them and skips members that are down.
	Endpoints []string

	// Namespace prefixes every key the engine writes, so that several
	// engines (deployments, or tests) share one cluster without seeing each
	// other. It is printable ASCII without spaces; empty uses the cluster's
	// whole key space.
	Namespace string

	// Timeout bounds every call to the cluster: a get, a write, one page of
	// a scan, a checkpoint's transfer excepted. A call that gets no answer
	// from a quorum in time fails with ErrUnavailable. Default
	// DefaultTimeout.
	Timeout time.Duration

	// MaxTxnOps is the cluster's limit on operations per transaction (etcd's
	// --max-txn-ops). A batch with more distinct keys fails with
	// ErrBatchTooLarge. Set it to the cluster's value: a larger one only
	// moves the refusal to the server. Default DefaultMaxTxnOps, etcd's own
	// default.
	MaxTxnOps int

	// MaxRequestBytes is the cluster's request size limit (etcd's
	// --max-request-bytes). A batch whose request is larger fails with
	// ErrBatchTooLarge, a value that cannot fit any request with
	// storage.ErrValueTooLarge. Default DefaultMaxRequestBytes, etcd's own
	// default.
	MaxRequestBytes int

	// PageSize is the number of rows a scan reads per request. Default
	// DefaultPageSize.
	PageSize int
}

// Defaults of Config.
const (
	DefaultTimeout         = 5 * time.Second
	DefaultMaxTxnOps       = 128
	DefaultMaxRequestBytes = 1536 * 1024
	DefaultPageSize        = 512
)

// withDefaults returns cfg with zero fields set to their defaults, or an
// error for a field that cannot work.
func (cfg Config) withDefaults() (Config, error) {
	if len(cfg.Endpoints) == 0 {
		return cfg, errors.New("config: no endpoints")
	}
	for i, endpoint := range cfg.Endpoints {
		if strings.TrimSpace(endpoint) == "" {
			return cfg, fmt.Errorf("config: endpoint %d is empty", i)
		}
	}
	if err := validNamespace(cfg.Namespace); err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	for _, f := range []struct {
		name  string
		value *int
		def   int
	}{
		{"MaxTxnOps", &cfg.MaxTxnOps, DefaultMaxTxnOps},
		{"MaxRequestBytes", &cfg.MaxRequestBytes, DefaultMaxRequestBytes},
		{"PageSize", &cfg.PageSize, DefaultPageSize},
	} {
		switch {
		case *f.value == 0:
			*f.value = f.def
		case *f.value < 0:
			return cfg, fmt.Errorf("config: %s is %d", f.name, *f.value)
		}
	}
	switch {
	case cfg.Timeout == 0:
		cfg.Timeout = DefaultTimeout
	case cfg.Timeout < 0:
		return cfg, fmt.Errorf("config: Timeout is %v", cfg.Timeout)
	}
	return cfg, nil
}
