package replicas

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
	"telha.dev/graph"
	"telha.dev/temporal"
	"telha.dev/vector"
)

// BenchmarkClusterCost measures what a deployment of several processes
// pays for agreeing through the store, on the engines that hold data
// across processes or restarts: RocksDB (on this machine's disk) and etcd
// (a three-member cluster on loopback, in this process, sharing its
// cores). It uses public API only, so that the same file runs against an
// older tree, before the cluster clock and cache validation, for the
// comparison in BENCHMARKS.md (the older tree's run into before.txt):
//
//	cd cmd
//	go test -run '^$' -bench ClusterCost -benchtime 2000x -count 6 ./replicas/ > after.txt
//	benchstat before.txt after.txt
//
// Writes: op=assert-node asserts a new node (one batch; with the cluster
// clock, the batch also advances the tenant's clock and requires its
// generation), op=put-vector puts a new vector (with validation, the batch
// advances the tenant's vectors sequence). Reads: op=neighbors reads a
// node's typed neighbours (with validation, one read of the tenant's
// generation first), op=knn an exact search of 10 nearest among 1,000
// vectors of 32 dimensions from the in-memory index (with validation,
// reads of the generation and of the vectors sequence first).
func BenchmarkClusterCost(b *testing.B) {
	engines := []struct {
		name string
		open func(b *testing.B) storage.Engine
	}{
		{"rocksdb", func(b *testing.B) storage.Engine {
			e, err := rocksdb.Open(storagetest.RocksDBConfig(filepath.Join(b.TempDir(), "store")))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = e.Close() })
			return e
		}},
		{"etcd", func(b *testing.B) storage.Engine { return etcdtest.Engine(b) }},
	}
	const (
		vectors   = 1000
		dimension = 32
		model     = "bench-cluster-cost"
	)
	for _, eng := range engines {
		b.Run("engine="+eng.name, func(b *testing.B) {
			e := eng.open(b)
			scope := storagetest.TenantScope(b)
			g := graph.Open(e, graph.Options{})
			vs := vector.New(e)
			b.Cleanup(func() { _ = vs.Close() })
			if _, err := vs.RegisterModel(model, dimension, vector.L2, 1); err != nil {
				b.Fatal(err)
			}
			always := temporal.Interval{Start: 0, End: temporal.Forever}
			hub := uuid.New()
			if _, err := g.Store().AssertNode(scope, temporal.NodeFact{ID: hub, Valid: always}); err != nil {
				b.Fatal(err)
			}
			for range 10 {
				other := uuid.New()
				if _, err := g.Store().AssertNode(scope, temporal.NodeFact{ID: other, Valid: always}); err != nil {
					b.Fatal(err)
				}
				if _, err := g.Store().AssertEdge(scope, temporal.EdgeFact{ID: uuid.New(), From: hub, To: other, Type: "KNOWS", Valid: always}); err != nil {
					b.Fatal(err)
				}
			}
			rng := rand.New(rand.NewPCG(1, 2))
			vec := func() []float32 {
				v := make([]float32, dimension)
				for i := range v {
					v[i] = rng.Float32()
				}
				return v
			}
			for range vectors {
				if err := vs.Put(scope, uuid.New(), model, 0, 1, vec()); err != nil {
					b.Fatal(err)
				}
			}
			b.Run("op=assert-node", func(b *testing.B) {
				for b.Loop() {
					if _, err := g.Store().AssertNode(scope, temporal.NodeFact{ID: uuid.New(), Valid: always}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("op=neighbors", func(b *testing.B) {
				now := temporal.Current(1)
				for b.Loop() {
					if ns, err := g.Neighbors(scope, hub, graph.Out, now, "KNOWS"); err != nil || len(ns) != 10 {
						b.Fatalf("neighbors: %d, %v", len(ns), err)
					}
				}
			})
			b.Run("op=knn", func(b *testing.B) {
				q := vector.Query{Model: model, Vector: vec(), K: 10, At: vector.Latest}
				for b.Loop() {
					if hits, err := vs.Search(scope, q); err != nil || len(hits) != 10 {
						b.Fatalf("search: %d hits, %v", len(hits), err)
					}
				}
			})
			b.Run("op=put-vector", func(b *testing.B) {
				v := vec()
				for b.Loop() {
					if err := vs.Put(scope, uuid.New(), model, 0, 1, v); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
