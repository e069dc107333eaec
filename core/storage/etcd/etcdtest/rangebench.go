package etcdtest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// RangeOp returns one etcd Range (a linearizable get, etcd's default) of a
// key holding a value of valueSize bytes, in a new namespace of the
// shared cluster: the peer that benchmarks of other modules, which may
// not import the etcd client, measure themselves against in the same
// run. The client is closed when tb ends.
func RangeOp(tb testing.TB, valueSize int) func(ctx context.Context) error {
	tb.Helper()
	cfg := Config(tb)
	client, err := clientv3.New(clientv3.Config{Endpoints: cfg.Endpoints, DialTimeout: Timeout, Logger: zap.NewNop()})
	if err != nil {
		tb.Fatalf("etcdtest: range peer: %v", err)
	}
	tb.Cleanup(func() { _ = client.Close() })
	key := cfg.Namespace + "range-peer"
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if _, err := client.Put(ctx, key, strings.Repeat("v", valueSize)); err != nil {
		tb.Fatalf("etcdtest: range peer: %v", err)
	}
	return func(ctx context.Context) error {
		resp, err := client.Get(ctx, key)
		if err == nil && (len(resp.Kvs) != 1 || len(resp.Kvs[0].Value) != valueSize) {
			err = fmt.Errorf("etcdtest: range peer read %d keys", len(resp.Kvs))
		}
		return err
	}
}
