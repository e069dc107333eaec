package vector_test

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/temporal"
	"telha.dev/vector"
	"telha.dev/vector/bitmap"
)

// The kNN benchmark dataset: benchVectors nodes of label "Item", each with
// a 128-dimension vector under model "bench" (cosine) and a property
// "bucket" in 0..9, so that bucket = 3 selects 10% of the nodes. It is
// loaded once into one RocksDB store shared by all kNN benchmarks.
const (
	benchVectors = 100_000
	benchDim     = 128
	benchK       = 10
	benchBuckets = 10
)

type benchData struct {
	dir     string
	eng     storage.Engine
	store   *vector.Store
	index   *bitmap.Index
	scope   storage.TenantScope
	ids     []uuid.UUID
	vecs    [][]float32
	queries [][]float32
	load    time.Duration
	err     error
}

var (
	benchOnce sync.Once
	bench     benchData
)

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.eng != nil {
		_ = bench.eng.Close()
		_ = os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

func loadBench(b *testing.B) *benchData {
	b.Helper()
	benchOnce.Do(func() { bench.err = bench.build() })
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return &bench
}

func (d *benchData) build() error {
	start := time.Now()
	dir, err := os.MkdirTemp("", "telha-knn-bench-")
	if err != nil {
		return err
	}
	d.dir = dir
	db, err := rocksdb.Open(rocksdb.Config{Path: dir, CreateIfMissing: true})
	if err != nil {
		return err
	}
	d.eng = db
	d.store = vector.New(db)
	d.index = bitmap.New(db, bitmap.Options{})
	ts := temporal.Open(db, temporal.Options{Indexers: []temporal.Indexer{d.index}})
	if d.scope, err = storage.NewTenantScope(uuid.New(), uuid.New()); err != nil {
		return err
	}
	model, err := d.store.RegisterModel("bench", benchDim, vector.Cosine, 1)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	randomVector := func() []float32 {
		v := make([]float32, benchDim)
		for i := range v {
			v[i] = rng.Float32()*2 - 1
		}
		return v
	}
	var batch storage.Batch
	for i := range benchVectors {
		id := uuid.New()
		v := randomVector()
		d.ids, d.vecs = append(d.ids, id), append(d.vecs, v)
		if err := d.store.Stage(&batch, d.scope, model, id, 1, 10, v); err != nil {
			return err
		}
		if batch.Len() == 1000 || i == benchVectors-1 {
			if err := d.store.Write(&batch); err != nil {
				return err
			}
			batch.Reset()
		}
		fact := temporal.NodeFact{
			ID: id, Valid: temporal.Interval{Start: 0, End: temporal.Forever}, Labels: []string{"Item"},
			Props: temporal.Properties{"bucket": temporal.Int(int64(i % benchBuckets))},
		}
		if _, err := ts.AssertNode(d.scope, fact); err != nil {
			return err
		}
	}
	for range 64 {
		d.queries = append(d.queries, randomVector())
	}
	d.load = time.Since(start)
	return nil
}

// truth is the exact answer by an in-memory sort, for the recall check.
func (d *benchData) truth(q []float32, filter func(i int) bool) []uuid.UUID {
	type cand struct {
		id   uuid.UUID
		dist float64
	}
	var all []cand
	for i, v := range d.vecs {
		if filter != nil && !filter(i) {
			continue
		}
		var dot, nq, nv float64
		for j := range v {
			dot += float64(q[j]) * float64(v[j])
			nq += float64(q[j]) * float64(q[j])
			nv += float64(v[j]) * float64(v[j])
		}
		all = append(all, cand{d.ids[i], 1 - dot/(math.Sqrt(nq)*math.Sqrt(nv))})
	}
	slices.SortFunc(all, func(a, b cand) int {
		if a.dist < b.dist {
			return -1
		}
		if a.dist > b.dist {
			return 1
		}
		return slices.Compare(a.id[:], b.id[:])
	})
	out := make([]uuid.UUID, 0, benchK)
	for _, c := range all[:benchK] {
		out = append(out, c.id)
	}
	return out
}

// recall is |got ∩ want| / |want|.
func recall(got []vector.Hit, want []uuid.UUID) float64 {
	n := 0
	for _, h := range got {
		if slices.Contains(want, h.Node) {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// BenchmarkKNN measures exact kNN queries per second over 100,000 vectors
// of 128 dimensions on RocksDB, unfiltered and with a bitmap filter of 10%
// selectivity (the filter's bitmap query is part of each filtered query).
func BenchmarkKNN(b *testing.B) {
	d := loadBench(b)
	b.Logf("loaded %d vectors and index rows in %s", benchVectors, d.load.Round(time.Millisecond))
	search := func(q []float32, filtered bool) ([]vector.Hit, error) {
		query := vector.Query{Model: "bench", Vector: q, K: benchK, At: vector.Latest}
		if filtered {
			ids, err := d.index.Equal(d.eng, d.scope, "Item", "bucket", temporal.Int(3))
			if err != nil {
				return nil, err
			}
			query.Filter = &vector.Filter{IDs: ids}
		}
		return d.store.Search(d.scope, query)
	}
	for _, tc := range []struct {
		name     string
		filtered bool
		filter   func(i int) bool
	}{
		{"unfiltered", false, nil},
		{"filter-10pct", true, func(i int) bool { return i%benchBuckets == 3 }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			got, err := search(d.queries[0], tc.filtered)
			if err != nil {
				b.Fatal(err)
			}
			r := recall(got, d.truth(d.queries[0], tc.filter))
			cpu0 := cpuTime()
			i := 0
			for b.Loop() {
				if _, err := search(d.queries[i%len(d.queries)], tc.filtered); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "qps")
			// CPU time per query is the load-independent figure on a
			// shared machine, where wall-clock qps depends on neighbours.
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(r, "recall")
		})
	}
}

// cpuTime returns the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
