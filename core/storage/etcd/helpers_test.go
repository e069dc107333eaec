package etcd_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/google/uuid"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
)

// nodeKey is version v of node id in scope s.
func nodeKey(s storage.TenantScope, id uuid.UUID, v int) storage.Key {
	return storage.NodeVersionKey(s, id, storage.Timestamp(v), storage.Timestamp(v))
}

// putNodes writes n versions of one new node in one batch, version v with
// the value "v<v>", and returns their range.
func putNodes(t testing.TB, e storage.Engine, s storage.TenantScope, n int) storage.ScanRange {
	t.Helper()
	id := uuid.New()
	var b storage.Batch
	for v := range n {
		b.Put(nodeKey(s, id, v), fmt.Appendf(nil, "v%d", v))
	}
	if err := e.Write(&b); err != nil {
		t.Fatal(err)
	}
	return storage.NodeHistory(s, id)
}

// mustRows scans rg to its end, failing the test on error.
func mustRows(t testing.TB, r storage.Reader, rg storage.ScanRange) []storage.KV {
	t.Helper()
	rows, err := storagetest.ScanLimit(r, rg, 0)
	if err != nil {
		t.Fatalf("scan %s: %v", rg, err)
	}
	return rows
}

// sameRows reports whether two scans returned the same rows.
func sameRows(a, b []storage.KV) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i].Key, b[i].Key) || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// openConfig opens an engine on cfg, closed when the test ends.
func openConfig(t testing.TB, cfg etcd.Config) *etcd.Engine {
	t.Helper()
	e, err := etcd.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// rawClient returns an etcd client on the cluster of cfg, for what a test
// does behind the engine's back: compaction, foreign rows.
func rawClient(t testing.TB, cfg etcd.Config) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: cfg.Endpoints, DialTimeout: etcdtest.Timeout, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// compactNow compacts the cluster of c at its current revision and
// returns that revision.
func compactNow(t fataler, c *clientv3.Client) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), etcdtest.Timeout)
	defer cancel()
	resp, err := c.Get(ctx, "compact")
	if err != nil {
		t.Fatal(err)
	}
	// Compacting where the cluster is compacted already (no write since)
	// answers ErrCompacted, and changes nothing.
	if _, err := c.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// fataler is what testing.TB and *rapid.T share.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

// deadEndpoint returns an address where nothing listens.
func deadEndpoint(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// wantErr fails the test unless err wraps want.
func wantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: %v, want %v", what, err, want)
	}
}
