package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/storagetest"
	"telha.dev/graph"
	"telha.dev/lifecycle"
	telhav1 "telha.dev/server/gen/telha/v1"
	"telha.dev/server/gen/telha/v1/telhav1connect"
	"telha.dev/temporal"
	"telha.dev/vector"
)

// benchValueSize is the value of every node of the benchmarks, and of the
// etcd Range peer's key.
const benchValueSize = 100

// benchNodes is how many nodes each benchmark tenant holds.
const benchNodes = 1000

// benchServer is a RocksDB store with two tenants of benchNodes nodes
// each, and the server of it, served over unencrypted HTTP/2. Graph and
// vector benchmarks add edges (addEdges) and vectors (addVectors).
type benchServer struct {
	engine storage.Engine
	store  *temporal.Store
	url    string
	client *http.Client
	scopes [2]storage.TenantScope
	tokens [2]string
	nodes  [2][]uuid.UUID
}

func newBenchServer(b *testing.B, opts Options) *benchServer {
	b.Helper()
	e := engineOf(b, "rocksdb")
	bs := &benchServer{engine: e, store: temporal.Open(e, temporal.Options{})}
	value := temporal.Properties{"value": temporal.Bytes(make([]byte, benchValueSize))}
	scopes, tokens := tenantsWithKeys(b, e, "bench", 2)
	for i, s := range scopes {
		bs.scopes[i], bs.tokens[i] = s, tokens[i]
		for range benchNodes {
			id := uuid.New()
			if _, err := bs.store.AssertNode(s, temporal.NodeFact{ID: id, Valid: temporal.Interval{Start: 0, End: temporal.Forever}, Props: value}); err != nil {
				b.Fatal(err)
			}
			bs.nodes[i] = append(bs.nodes[i], id)
		}
	}
	bs.url = bs.serve(b, opts)
	bs.client = &http.Client{Transport: &http.Transport{Protocols: unencryptedHTTP2()}}
	return bs
}

// tenantsWithKeys provisions n tenants named prefix-0, prefix-1, ... on
// e, each with one key, and returns their scopes and tokens.
func tenantsWithKeys(tb testing.TB, e storage.Engine, prefix string, n int) ([]storage.TenantScope, []string) {
	tb.Helper()
	scopes := storagetest.TenantScopes(tb, n)
	tokens := make([]string, n)
	for i, s := range scopes {
		name := fmt.Sprintf("%s-%d", prefix, i)
		if _, err := lifecycle.Provision(e, s, name); err != nil {
			tb.Fatal(err)
		}
		_, tok, err := CreateKey(e, name, "", 0)
		if err != nil {
			tb.Fatal(err)
		}
		tokens[i] = tok
	}
	return scopes, tokens
}

// serve starts a server with opts on the benchmark's store, stopped when
// b ends, and returns its URL.
func (bs *benchServer) serve(b *testing.B, opts Options) string {
	b.Helper()
	srv, err := New(bs.engine, opts)
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.Protocols = new(http.Protocols)
	hs.Config.Protocols.SetUnencryptedHTTP2(true)
	hs.Start()
	b.Cleanup(hs.Close)
	return hs.URL
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

// benchDegree is the out-degree of every node of the graph benchmarks.
const benchDegree = 5

// addEdges gives each node of tenant i an edge of type "knows" to each of
// the benchDegree nodes after it (in the order of bs.nodes, wrapping).
func (bs *benchServer) addEdges(b *testing.B, i int) {
	b.Helper()
	ns := bs.nodes[i]
	for n, from := range ns {
		for d := 1; d <= benchDegree; d++ {
			f := temporal.EdgeFact{ID: uuid.New(), From: from, To: ns[(n+d)%len(ns)], Type: "knows", Valid: temporal.Interval{Start: 0, End: temporal.Forever}}
			if _, err := bs.store.AssertEdge(bs.scopes[i], f); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// neighboursClient returns one Neighbours (out) over gRPC of tenant i's
// nodes, in turn, with tenant i's token.
func (bs *benchServer) neighboursClient(i int) func(ctx context.Context, n int) error {
	c := telhav1connect.NewGraphServiceClient(bs.client, bs.url, connect.WithGRPC())
	return func(ctx context.Context, n int) error {
		req := connect.NewRequest(&telhav1.NeighboursRequest{Id: bs.nodes[i][n%benchNodes].String(), Direction: telhav1.Direction_DIRECTION_OUT})
		req.Header().Set("Authorization", "Bearer "+bs.tokens[i])
		resp, err := c.Neighbours(ctx, req)
		if err == nil && len(resp.Msg.GetNeighbours()) != benchDegree {
			err = fmt.Errorf("Neighbours answered %d neighbours", len(resp.Msg.GetNeighbours()))
		}
		return err
	}
}

// neighboursInProcess is the same read as neighboursClient, in process.
func (bs *benchServer) neighboursInProcess(i int) func(ctx context.Context, n int) error {
	g := graph.Open(bs.engine, graph.Options{})
	return func(_ context.Context, n int) error {
		ns, err := g.Neighbors(bs.scopes[i], bs.nodes[i][n%benchNodes], graph.Out, temporal.Current(storage.TimestampOf(time.Now())))
		if err == nil && len(ns) != benchDegree {
			err = fmt.Errorf("Neighbors found %d neighbours", len(ns))
		}
		return err
	}
}

// BenchmarkNeighbours: Neighbours (out, degree benchDegree) over the wire
// against graph.Graph.Neighbors in process, at 1 and 16 clients.
func BenchmarkNeighbours(b *testing.B) {
	bs := newBenchServer(b, Options{})
	bs.addEdges(b, 0)
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("wire/clients=%d", clients), func(b *testing.B) { runClients(b, clients, bs.neighboursClient(0)) })
		b.Run(fmt.Sprintf("inprocess/clients=%d", clients), func(b *testing.B) { runClients(b, clients, bs.neighboursInProcess(0)) })
	}
}

// The kNN benchmarks' model, vectors and queries: benchVectors vectors of
// benchDim dimensions under cosine distance, k = benchK. At 10,000 the
// approximate search walks its graph (below vector.DefaultExactBelow it
// would scan).
const (
	benchModel   = "bench-model"
	benchDim     = 128
	benchVectors = 10000
	benchK       = 10
	benchQueries = 256
)

// addVectors registers benchModel and gives tenant i benchVectors random
// vectors of it, with the approximate graph built (vector.Store.Warm: the
// server's vector store shares the engine's in-memory indexes), and
// returns benchQueries random query vectors.
func (bs *benchServer) addVectors(b *testing.B, i int) [][]float32 {
	b.Helper()
	vs := vector.New(bs.engine)
	defer vs.Close()
	now := storage.TimestampOf(time.Now())
	if _, err := vs.RegisterModel(benchModel, benchDim, vector.Cosine, now); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, uint64(i)))
	random := func() []float32 {
		v := make([]float32, benchDim)
		for d := range v {
			v[d] = rng.Float32()*2 - 1
		}
		return v
	}
	for range benchVectors {
		if err := vs.Put(bs.scopes[i], uuid.New(), benchModel, now, now, random()); err != nil {
			b.Fatal(err)
		}
	}
	if err := vs.Warm(bs.scopes[i], benchModel); err != nil {
		b.Fatal(err)
	}
	queries := make([][]float32, benchQueries)
	for q := range queries {
		queries[q] = random()
	}
	return queries
}

// knnClient returns one KNN over gRPC of tenant i, the queries in turn.
func (bs *benchServer) knnClient(i int, queries [][]float32, approximate bool) func(ctx context.Context, n int) error {
	c := telhav1connect.NewVectorServiceClient(bs.client, bs.url, connect.WithGRPC())
	return func(ctx context.Context, n int) error {
		req := connect.NewRequest(&telhav1.KNNRequest{Model: benchModel, Vector: queries[n%len(queries)], K: benchK, Approximate: approximate})
		req.Header().Set("Authorization", "Bearer "+bs.tokens[i])
		resp, err := c.KNN(ctx, req)
		if err == nil && len(resp.Msg.GetHits()) != benchK {
			err = fmt.Errorf("KNN answered %d hits", len(resp.Msg.GetHits()))
		}
		return err
	}
}

// knnInProcess is the same search as knnClient, in process.
func (bs *benchServer) knnInProcess(b *testing.B, i int, queries [][]float32, approximate bool) func(ctx context.Context, n int) error {
	vs := vector.New(bs.engine)
	b.Cleanup(func() { _ = vs.Close() })
	method := vector.Exact
	if approximate {
		method = vector.Approximate
	}
	return func(_ context.Context, n int) error {
		hits, err := vs.Search(bs.scopes[i], vector.Query{Model: benchModel, Vector: queries[n%len(queries)], K: benchK, At: vector.Latest, Method: method})
		if err == nil && len(hits) != benchK {
			err = fmt.Errorf("Search found %d hits", len(hits))
		}
		return err
	}
}

// BenchmarkKNN: KNN (k = benchK over benchVectors vectors of benchDim
// dimensions), exact and approximate, over the wire against
// vector.Store.Search in process, at 1 and 16 clients.
func BenchmarkKNN(b *testing.B) {
	bs := newBenchServer(b, Options{})
	queries := bs.addVectors(b, 0)
	for _, method := range []string{"exact", "approximate"} {
		approximate := method == "approximate"
		for _, clients := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/wire/clients=%d", method, clients), func(b *testing.B) {
				runClients(b, clients, bs.knnClient(0, queries, approximate))
			})
			b.Run(fmt.Sprintf("%s/inprocess/clients=%d", method, clients), func(b *testing.B) {
				runClients(b, clients, bs.knnInProcess(b, 0, queries, approximate))
			})
		}
	}
}

// floodClients is how many clients a flooding tenant runs.
const floodClients = 16

// flood runs floodClients goroutines calling op in a loop until stop is
// called, which waits for them and returns how many calls succeeded per
// second. Errors are not counted, and do not stop the flood: a flood that
// the server refuses is still a flood.
func flood(op func(ctx context.Context, n int) error) (stop func() float64) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var served atomic.Int64
	start := time.Now()
	for c := range floodClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := c; ctx.Err() == nil; n += floodClients {
				if op(ctx, n) == nil {
					served.Add(1)
				}
			}
		}()
	}
	return func() float64 {
		cancel()
		wg.Wait()
		return float64(served.Load()) / time.Since(start).Seconds()
	}
}

// putNodeClient returns one PutNode over gRPC of a new node of tenant i.
func (bs *benchServer) putNodeClient(i int) func(ctx context.Context, n int) error {
	c := telhav1connect.NewTemporalServiceClient(bs.client, bs.url, connect.WithGRPC())
	return func(ctx context.Context, _ int) error {
		req := connect.NewRequest(&telhav1.PutNodeRequest{Id: uuid.NewString(), Value: make([]byte, benchValueSize)})
		req.Header().Set("Authorization", "Bearer "+bs.tokens[i])
		_, err := c.PutNode(ctx, req)
		return err
	}
}

// BenchmarkNoisyNeighbour: tenant B's GetNode latency from one client,
// alone and while tenant A floods the same server with floodClients
// clients of PutNode or of exact KNN, on servers with no effective bound
// (every flooding call runs at once), with the default per-tenant bound
// (TenantBound's zero value), and with A bounded to one running call.
// Unbounded runs first, just after the store was written, when RocksDB's
// background work is likeliest to cost it. A's flood runs from its own connection, as another client
// process would; flood-calls/s is how many of A's calls the server
// answered per second meanwhile.
func BenchmarkNoisyNeighbour(b *testing.B) {
	bs := newBenchServer(b, Options{})
	queries := bs.addVectors(b, 0)
	for _, bound := range []struct {
		name  string
		bound TenantBound
	}{
		{"unbounded", TenantBound{Concurrency: 1 << 10}},
		{"default", TenantBound{}},
		{"concurrency=1", TenantBound{Concurrency: 1}},
	} {
		srv := *bs
		srv.url = bs.serve(b, Options{Tenant: bound.bound})
		// A is another client process: its calls do not share B's connection.
		a := srv
		a.client = &http.Client{Transport: &http.Transport{Protocols: unencryptedHTTP2()}}
		b.Run(bound.name+"/alone", func(b *testing.B) { runClients(b, 1, srv.getNodeClient(1)) })
		for _, f := range []struct {
			name string
			op   func(ctx context.Context, n int) error
		}{
			{"putnode", a.putNodeClient(0)},
			{"knn", a.knnClient(0, queries, false)},
		} {
			b.Run(bound.name+"/flood-"+f.name, func(b *testing.B) {
				stop := flood(f.op)
				runClients(b, 1, srv.getNodeClient(1))
				b.ReportMetric(stop(), "flood-calls/s")
			})
		}
	}
}

// engineOf returns a new engine of the matrix's kind, closed when tb
// ends.
func engineOf(tb testing.TB, kind string) storage.Engine {
	tb.Helper()
	for _, k := range storagetest.Engines() {
		if k.Name != kind {
			continue
		}
		e, err := k.NewStore(tb)()
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { _ = e.Close() })
		return e
	}
	tb.Fatalf("no %s engine in the matrix", kind)
	return nil
}
