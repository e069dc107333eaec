package vector_test

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/vector"
)

// BenchmarkSearchBesideWrites measures approximate searches (k = 10, ef
// 64, the index of warmWriteIndex) while a writer replaces the vector of
// a random node every writeEvery: each write kills a slot
// and adds one, which the graph builder then links in. It reports the
// searches' rate and their latency at the median, the 99th percentile
// and the worst, and the writes made. writes=none is the same without
// the writer. A search that had to wait for a write being applied or for
// a builder step would show it in the tail.
func BenchmarkSearchBesideWrites(b *testing.B) {
	const writeEvery = 2 * time.Millisecond
	s, scope, ids, next := warmWriteIndex(b)
	queries := make([][]float32, benchQueries)
	for i := range queries {
		queries[i] = next()
	}
	for _, writes := range []bool{false, true} {
		name := "writes=none"
		if writes {
			name = "writes=every2ms"
		}
		b.Run(name, func(b *testing.B) {
			var stop atomic.Bool
			var wrote atomic.Int64
			var wg sync.WaitGroup
			if writes {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(3, 3))
					tx := storage.Timestamp(11 + wrote.Load())
					for tick := time.NewTicker(writeEvery); !stop.Load(); <-tick.C {
						tx++
						if err := s.Put(scope, ids[rng.IntN(len(ids))], "w", 1, tx, next()); err != nil {
							b.Error(err)
							return
						}
						wrote.Add(1)
					}
				})
			}
			var got []vector.Hit
			var took []time.Duration
			i := 0
			for b.Loop() {
				start := time.Now()
				var err error
				got, err = s.AppendSearch(got[:0], scope, vector.Query{Model: "w", Vector: queries[i%len(queries)], K: benchK, At: vector.Latest, Method: vector.Approximate})
				took = append(took, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				i++
			}
			stop.Store(true)
			wg.Wait()
			slices.Sort(took)
			at := func(q float64) float64 { return float64(took[int(q*float64(len(took)-1))].Microseconds()) }
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
			b.ReportMetric(at(0.5), "p50-µs")
			b.ReportMetric(at(0.99), "p99-µs")
			b.ReportMetric(at(1), "max-µs")
			b.ReportMetric(float64(wrote.Load()), "writes")
		})
	}
}

// warmWriteIndex makes the index of the write benchmarks: 20,000
// clustered vectors of 128 dimensions under model "w" (cosine) in
// RocksDB, with its graph built. It returns the generator that made
// them, for more.
func warmWriteIndex(b *testing.B) (*vector.Store, storage.TenantScope, []uuid.UUID, func() []float32) {
	b.Helper()
	const n, dim = 20_000, 128
	next := generators["clustered"](1, dim)
	db, err := rocksdb.Open(rocksdb.Config{Path: b.TempDir(), CreateIfMissing: true})
	if err != nil {
		b.Fatal(err)
	}
	s := vector.NewWithOptions(db, vector.Options{EfSearch: 64})
	b.Cleanup(func() {
		_ = s.Close()
		_ = db.Close()
	})
	scope, err := storage.NewTenantScope(uuid.New(), uuid.New())
	if err != nil {
		b.Fatal(err)
	}
	model, err := s.RegisterModel("w", dim, vector.Cosine, 1)
	if err != nil {
		b.Fatal(err)
	}
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = next()
	}
	ids := writeVectors(b, s, scope, model, vecs)
	if err := s.Warm(scope, "w"); err != nil {
		b.Fatal(err)
	}
	return s, scope, ids, next
}

// BenchmarkPutBesideGraph measures a write that replaces the vector of a
// random node of the index of BenchmarkSearchBesideWrites: the engine's
// write, applying it to the index (a slot killed, one added) and
// publishing the view searches read. The graph builder links the new
// slots in meanwhile, on another goroutine.
func BenchmarkPutBesideGraph(b *testing.B) {
	s, scope, ids, next := warmWriteIndex(b)
	vecs := make([][]float32, 256)
	for i := range vecs {
		vecs[i] = next()
	}
	rng := rand.New(rand.NewPCG(4, 4))
	tx := storage.Timestamp(11)
	for b.Loop() {
		tx++
		if err := s.Put(scope, ids[rng.IntN(len(ids))], "w", 1, tx, vecs[int(tx)%len(vecs)]); err != nil {
			b.Fatal(err)
		}
	}
}
