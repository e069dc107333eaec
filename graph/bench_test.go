package graph

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	_ "telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
	"telha.dev/temporal"
)

// The benchmark dataset lives in one RocksDB store, built once per test
// binary: TELHA_BENCH_NODES nodes (default 100,000), five times as many
// random edges of four types, and one node with 100 versions. Set the
// variable smaller for a quick run.
type benchData struct {
	g       *Graph
	scope   storage.TenantScope
	nodes   int
	history uuid.UUID // the node with 100 versions
	err     error
}

var (
	benchOnce sync.Once
	bench     benchData
	benchDir  string
)

// TestMain runs the tests, which use the engine matrix
// (storagetest.EachEngine), stops what its engine kinds share, and removes
// the benchmark store. The etcd engine, of another module, joins this
// package's matrix with the blank import of etcdtest.
func TestMain(m *testing.M) {
	code := storagetest.RunMain(m)
	if bench.g != nil {
		_ = bench.g.Store().Engine().Close()
	}
	if benchDir != "" {
		_ = os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

func benchNodes() int {
	if n, err := strconv.Atoi(os.Getenv("TELHA_BENCH_NODES")); err == nil && n > 0 {
		return n
	}
	return 100_000
}

func loadBench(b *testing.B) *benchData {
	b.Helper()
	benchOnce.Do(func() { bench.err = buildBench(benchNodes()) })
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return &bench
}

func buildBench(nodes int) error {
	dir, err := os.MkdirTemp("", "telha-graph-bench-*")
	if err != nil {
		return err
	}
	benchDir = dir
	e, err := rocksdb.Open(rocksdb.Config{Path: dir, CreateIfMissing: true})
	if err != nil {
		return err
	}
	scope, err := storage.NewTenantScope(uuid.New(), uuid.New())
	if err != nil {
		return err
	}
	g := Open(e, Options{})
	bench = benchData{g: g, scope: scope, nodes: nodes, history: storagetest.ID(nodes + 1)}
	s := g.Store()
	for i := range nodes {
		f := temporal.NodeFact{ID: storagetest.ID(i), Valid: always(), Labels: []string{"Person"},
			Props: temporal.Properties{"name": temporal.String(fmt.Sprintf("node %d", i)), "rank": temporal.Int(int64(i))}}
		if _, err := s.AssertNode(scope, f); err != nil {
			return err
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	types := []string{"KNOWS", "WORKS_WITH", "LIKES", "FOLLOWS"}
	for i := range 5 * nodes {
		f := temporal.EdgeFact{
			ID: storagetest.ID(10*nodes + i), From: storagetest.ID(rng.IntN(nodes)), To: storagetest.ID(rng.IntN(nodes)),
			Type: types[i%len(types)], Valid: always(),
		}
		if _, err := s.AssertEdge(scope, f); err != nil {
			return err
		}
	}
	for v := range 100 {
		iv := temporal.Interval{Start: storage.Timestamp(v * 10), End: storage.Timestamp(v*10 + 10)}
		f := temporal.NodeFact{ID: bench.history, Valid: iv, Props: temporal.Properties{"v": temporal.Int(int64(v))}}
		if _, err := s.AssertNode(scope, f); err != nil {
			return err
		}
	}
	return nil
}

func BenchmarkNodeAsOf(b *testing.B) {
	d := loadBench(b)
	rng := rand.New(rand.NewPCG(3, 4))
	at := temporal.Current(100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.g.Store().NodeAsOf(d.scope, storagetest.ID(rng.IntN(d.nodes)), at); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNodeAsOfIn100Versions(b *testing.B) {
	d := loadBench(b)
	at := temporal.Current(505) // version 50 of 100
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.g.Store().NodeAsOf(d.scope, d.history, at); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNodeHistory100Versions(b *testing.B) {
	d := loadBench(b)
	b.ReportAllocs()
	for b.Loop() {
		h, err := d.g.Store().NodeHistory(d.scope, d.history)
		if err != nil || len(h) != 100 {
			b.Fatalf("%d versions, %v", len(h), err)
		}
	}
}

func BenchmarkNeighborsOut(b *testing.B) {
	d := loadBench(b)
	rng := rand.New(rand.NewPCG(5, 6))
	at := temporal.Current(100)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := d.g.Neighbors(d.scope, storagetest.ID(rng.IntN(d.nodes)), Out, at); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTwoHopOut(b *testing.B) {
	d := loadBench(b)
	rng := rand.New(rand.NewPCG(7, 8))
	at := temporal.Current(100)
	tr := Traversal{Direction: Out, MaxDepth: 2, MaxVisited: 10_000}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := d.g.KHop(d.scope, storagetest.ID(rng.IntN(d.nodes)), at, tr); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidAtPage100(b *testing.B) {
	d := loadBench(b)
	at := temporal.Current(100)
	b.ReportAllocs()
	for b.Loop() {
		p, err := d.g.Store().ValidAt(d.scope, at, temporal.Cursor{}, 100)
		if err != nil || len(p.Versions) != 100 {
			b.Fatalf("%d versions, %v", len(p.Versions), err)
		}
	}
}

// benchEdges numbers the edges BenchmarkAssertEdge writes, across its runs.
var benchEdges atomic.Int64

// BenchmarkAssertEdge writes new edges between existing nodes, and, as the
// baseline in the same run, resolves a registered edge type alone: the
// registration read that every edge write makes since the registry stopped
// trusting its cache.
func BenchmarkAssertEdge(b *testing.B) {
	d := loadBench(b)
	b.Run("assert edge", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(9, 10))
		b.ReportAllocs()
		for b.Loop() {
			f := temporal.EdgeFact{
				ID: storagetest.ID(20*d.nodes + int(benchEdges.Add(1))), From: storagetest.ID(rng.IntN(d.nodes)),
				To: storagetest.ID(rng.IntN(d.nodes)), Type: "KNOWS", Valid: always(),
			}
			if _, err := d.g.Store().AssertEdge(d.scope, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("resolve registered type", func(b *testing.B) {
		var batch storage.Batch
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.g.EdgeTypeRegistry().Resolve(&batch, d.scope, "KNOWS", 1); err != nil || batch.Len() != 0 {
				b.Fatalf("resolve: %v, %d rows", err, batch.Len())
			}
		}
	})
}
