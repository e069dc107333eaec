package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/lifecycle"
	telhav1 "telha.dev/server/gen/telha/v1"
	"telha.dev/server/gen/telha/v1/telhav1connect"
	"telha.dev/temporal"
)

// benchValueSize is the value of every node of the benchmarks, and of the
// etcd Range peer's key.
const benchValueSize = 100

// benchNodes is how many nodes each benchmark tenant holds.
const benchNodes = 1000

// benchServer is a server on a RocksDB store with two tenants of
// benchNodes nodes each, served over unencrypted HTTP/2.
type benchServer struct {
	store  *temporal.Store
	url    string
	client *http.Client
	scopes [2]storage.TenantScope
	tokens [2]string
	nodes  [2][]uuid.UUID
}

func newBenchServer(b *testing.B, opts Options) *benchServer {
	b.Helper()
	e := rocksDB(b)
	srv, err := New(e, opts)
	if err != nil {
		b.Fatal(err)
	}
	bs := &benchServer{store: temporal.Open(e, temporal.Options{})}
	value := temporal.Properties{"value": temporal.Bytes(make([]byte, benchValueSize))}
	for i, s := range storagetest.TenantScopes(b, 2) {
		name := fmt.Sprintf("bench-%d", i)
		if _, err := lifecycle.Provision(e, s, name); err != nil {
			b.Fatal(err)
		}
		_, tok, err := CreateKey(e, name, "", 0)
		if err != nil {
			b.Fatal(err)
		}
		bs.scopes[i], bs.tokens[i] = s, tok
		for range benchNodes {
			id := uuid.New()
			if _, err := bs.store.AssertNode(s, temporal.NodeFact{ID: id, Valid: temporal.Interval{Start: 0, End: temporal.Forever}, Props: value}); err != nil {
				b.Fatal(err)
			}
			bs.nodes[i] = append(bs.nodes[i], id)
		}
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	b.Cleanup(hs.Close)
	bs.url = hs.URL
	bs.client = &http.Client{Transport: &http.Transport{Protocols: unencryptedHTTP2()}}
	return bs
}

// getNodeClient returns one GetNode over gRPC of tenant i's nodes, in
// turn, with tenant i's token.
func (bs *benchServer) getNodeClient(i int) func(ctx context.Context, n int) error {
	c := telhav1connect.NewTemporalServiceClient(bs.client, bs.url, connect.WithGRPC())
	return func(ctx context.Context, n int) error {
		req := connect.NewRequest(&telhav1.GetNodeRequest{Id: bs.nodes[i][n%benchNodes].String()})
		req.Header().Set("Authorization", "Bearer "+bs.tokens[i])
		resp, err := c.GetNode(ctx, req)
		if err == nil && len(resp.Msg.GetVersion().GetValue()) != benchValueSize {
			err = fmt.Errorf("GetNode answered %d bytes", len(resp.Msg.GetVersion().GetValue()))
		}
		return err
	}
}

// getNodeInProcess is the same read as getNodeClient, in process.
func (bs *benchServer) getNodeInProcess(i int) func(ctx context.Context, n int) error {
	return func(_ context.Context, n int) error {
		_, err := bs.store.NodeAsOf(bs.scopes[i], bs.nodes[i][n%benchNodes], temporal.Current(storage.TimestampOf(time.Now())))
		return err
	}
}

// runClients runs b.N calls of op over clients goroutines and reports the
// p50 and p99 latency and the throughput.
func runClients(b *testing.B, clients int, op func(ctx context.Context, n int) error) {
	b.Helper()
	lat := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := c; n < b.N; n += clients {
				t0 := time.Now()
				if err := op(ctx, n); err != nil {
					b.Error(err)
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	reportLatency(b, slices.Concat(lat...), elapsed)
}

// reportLatency reports p50, p99 and calls per second of one run.
func reportLatency(b *testing.B, all []time.Duration, elapsed time.Duration) {
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "calls/s")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkGetNode: GetNode over the wire (gRPC over HTTP/2 on loopback,
// authenticated on every call) against the same read in process, and
// etcd's own Range of a value of the same size on the three-member test
// cluster, at 1 and 16 clients.
func BenchmarkGetNode(b *testing.B) {
	bs := newBenchServer(b, Options{})
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("wire/clients=%d", clients), func(b *testing.B) { runClients(b, clients, bs.getNodeClient(0)) })
		b.Run(fmt.Sprintf("inprocess/clients=%d", clients), func(b *testing.B) { runClients(b, clients, bs.getNodeInProcess(0)) })
	}
	rangeOp := etcdtest.RangeOp(b, benchValueSize)
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("etcd-range/clients=%d", clients), func(b *testing.B) {
			runClients(b, clients, func(ctx context.Context, _ int) error { return rangeOp(ctx) })
		})
	}
}

// BenchmarkNoisyNeighbour: tenant B's GetNode latency alone, and while
// tenant A floods the server with 16 clients of PutNode (writes, the
// heaviest call of the service today), with the per-tenant concurrency
// bound at its default.
func BenchmarkNoisyNeighbour(b *testing.B) {
	bs := newBenchServer(b, Options{})
	b.Run("alone", func(b *testing.B) { runClients(b, 1, bs.getNodeClient(1)) })
	b.Run("flooded", func(b *testing.B) {
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		c := telhav1connect.NewTemporalServiceClient(bs.client, bs.url, connect.WithGRPC())
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					req := connect.NewRequest(&telhav1.PutNodeRequest{Id: uuid.NewString(), Value: make([]byte, benchValueSize)})
					req.Header().Set("Authorization", "Bearer "+bs.tokens[0])
					_, _ = c.PutNode(ctx, req)
				}
			}()
		}
		runClients(b, 1, bs.getNodeClient(1))
		stop()
		wg.Wait()
	})
}

// rocksDB returns a new RocksDB engine of the matrix, closed when b ends.
func rocksDB(b *testing.B) storage.Engine {
	b.Helper()
	for _, k := range storagetest.Engines() {
		if k.Name != "rocksdb" {
			continue
		}
		e, err := k.NewStore(b)()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = e.Close() })
		return e
	}
	b.Fatal("no rocksdb engine in the matrix")
	return nil
}
