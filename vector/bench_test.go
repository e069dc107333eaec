package vector_test

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	_ "telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
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
	benchQueries = 64
)

var knnData = flag.String("knn.data", "clustered",
	"vectors of the kNN benchmark: clustered (embedding-like) or uniform (the worst case of approximate search)")

// generators make the benchmark's vectors. Both are seeded, so every run
// measures the same data.
//
// clustered is shaped like text or image embeddings: 100 clusters in a
// latent space of 24 dimensions, mapped into dim (128) by a fixed random linear
// map, plus independent noise of a tenth of the signal's scale in every
// component. Its intrinsic dimension is about that of SIFT or GloVe
// vectors, the data sets on which approximate indexes publish their recall
// (ann-benchmarks.com).
//
// uniform draws every component independently and uniformly from [-1, 1].
// It has no structure at all (intrinsic dimension 128), so the nearest
// neighbours of a point are barely nearer than the rest and no approximate
// index finds them without visiting most of the set: a worst case, kept to
// show what the exact path is for.
var generators = map[string]func(seed uint64, dim int) func() []float32{
	"clustered": func(seed uint64, dim int) func() []float32 {
		const latent, clusters, spread, noise = 24, 100, 0.6, 0.1
		shape := rand.New(rand.NewPCG(7, 7)) // the same map and clusters for every seed
		proj := make([]float64, dim*latent)
		for i := range proj {
			proj[i] = shape.NormFloat64() / math.Sqrt(latent)
		}
		centres := make([]float64, clusters*latent)
		for i := range centres {
			centres[i] = shape.NormFloat64()
		}
		rng := rand.New(rand.NewPCG(seed, 2))
		z := make([]float64, latent)
		return func() []float32 {
			c := centres[rng.IntN(clusters)*latent:]
			for j := range z {
				z[j] = c[j] + spread*rng.NormFloat64()
			}
			v := make([]float32, dim)
			for i := range v {
				var x float64
				for j, zj := range z {
					x += proj[i*latent+j] * zj
				}
				v[i] = float32(x + noise*rng.NormFloat64())
			}
			return v
		}
	},
	"uniform": func(seed uint64, dim int) func() []float32 {
		rng := rand.New(rand.NewPCG(seed, 2))
		return func() []float32 {
			v := make([]float32, dim)
			for i := range v {
				v[i] = rng.Float32()*2 - 1
			}
			return v
		}
	},
}

type benchData struct {
	dir     string
	eng     storage.Engine
	store   *vector.Store
	index   *bitmap.Index
	scope   storage.TenantScope
	ids     []uuid.UUID
	vecs    [][]float32
	queries [][]float32
	truth   map[bool][][]uuid.UUID // filtered? -> the exact answer of each query
	memory  map[string]float64     // path -> heap bytes per vector of its index
	load    time.Duration          // writing the data set
	built   time.Duration          // building the graph
	err     error
}

var (
	benchOnce sync.Once
	bench     benchData
)

// TestMain runs the tests, which use the engine matrix
// (storagetest.EachEngine), stops what its engine kinds share, and removes
// the benchmark's store. The etcd engine, of another module, joins this
// package's matrix with the blank import of etcdtest.
func TestMain(m *testing.M) {
	flag.Parse()
	code := storagetest.RunMain(m)
	if bench.eng != nil {
		_ = bench.store.Close()
		_ = bench.eng.Close()
		_ = os.RemoveAll(bench.dir)
	}
	os.Exit(code)
}

func loadBench(b *testing.B) *benchData {
	b.Helper()
	benchOnce.Do(func() { bench.err = bench.build(b) })
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return &bench
}

func (d *benchData) build(tb testing.TB) error {
	generate, ok := generators[*knnData]
	if !ok {
		return fmt.Errorf("-knn.data=%q: want clustered or uniform", *knnData)
	}
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
	d.scope = storagetest.TenantScope(tb)
	model, err := d.store.RegisterModel("bench", benchDim, vector.Cosine, 1)
	if err != nil {
		return err
	}
	next := generate(1, benchDim)
	var batch storage.Batch
	for i := range benchVectors {
		// Logical ids are version 7 UUIDs, ordered by creation time, as
		// the store makes them.
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		v := next()
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
	nextQuery := generate(2, benchDim)
	for range benchQueries {
		d.queries = append(d.queries, nextQuery())
	}
	d.truth = map[bool][][]uuid.UUID{false: d.answers(nil), true: d.answers(bucket3)}
	d.load = time.Since(start)
	return d.warm()
}

// warm loads the in-memory index, then builds its graph, and records the
// heap each takes per vector.
func (d *benchData) warm() error {
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	base := heap()
	if _, err := d.store.Search(d.scope, vector.Query{Model: "bench", Vector: d.queries[0], K: 1, At: vector.Latest}); err != nil {
		return err
	}
	loaded := heap()
	start := time.Now()
	if err := d.store.Warm(d.scope, "bench"); err != nil {
		return err
	}
	d.built = time.Since(start)
	built := heap()
	perVector := func(n uint64) float64 { return float64(n) / benchVectors }
	d.memory = map[string]float64{"exact": perVector(loaded - base), "ann": perVector(built - base)}
	return nil
}

// bucket3 selects the vectors whose node has bucket = 3.
func bucket3(i int) bool { return i%benchBuckets == 3 }

// answers returns the exact answer of every query among the vectors that
// allow selects (nil: all).
func (d *benchData) answers(allow func(i int) bool) [][]uuid.UUID {
	out := make([][]uuid.UUID, len(d.queries))
	for i, q := range d.queries {
		out[i] = d.exact(q, allow)
	}
	return out
}

// exact is the answer by an in-memory sort of the whole set, written
// independently of the store: the yardstick of recall.
func (d *benchData) exact(q []float32, allow func(i int) bool) []uuid.UUID {
	type cand struct {
		id   uuid.UUID
		dist float64
	}
	var all []cand
	for i, v := range d.vecs {
		if allow != nil && !allow(i) {
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
		if a.dist != b.dist {
			if a.dist < b.dist {
				return -1
			}
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

// found is |got ∩ want|.
func found(got []vector.Hit, want []uuid.UUID) int {
	n := 0
	for _, h := range got {
		if slices.Contains(want, h.Node) {
			n++
		}
	}
	return n
}

// BenchmarkKNN measures kNN queries (k = 10, cosine) over 100,000 vectors
// of 128 dimensions in one tenant on RocksDB, by each path of Search:
// path=store, the exact search over the store (FromStore, the baseline);
// path=exact, the exact search of the in-memory index; path=ann, the
// approximate graph. Each runs unfiltered and with a bitmap filter of 10%
// selectivity (the filter's bitmap query is part of each filtered query).
// recall@10 is measured against the exact answer over the queries each
// benchmark ran; bytes/vector is the heap the in-memory index takes (the
// matrix, and for ann its graph too); build-s is the time Warm took to
// build the graph of the 100,000 vectors.
func BenchmarkKNN(b *testing.B) {
	d := loadBench(b)
	b.Logf("data %s: %d vectors and index rows written in %s; graph built in %s; %+v",
		*knnData, benchVectors, d.load.Round(time.Millisecond), d.built.Round(time.Millisecond), d.store.MemoryStats())
	for _, path := range []struct {
		name   string
		method vector.Method
	}{{"store", vector.FromStore}, {"exact", vector.Exact}, {"ann", vector.Approximate}} {
		for _, filter := range []struct {
			name     string
			filtered bool
		}{{"none", false}, {"10pct", true}} {
			b.Run("path="+path.name+"/filter="+filter.name, func(b *testing.B) {
				search := func(q []float32) ([]vector.Hit, error) {
					query := vector.Query{Model: "bench", Vector: q, K: benchK, At: vector.Latest, Method: path.method}
					if filter.filtered {
						ids, err := d.index.Equal(d.eng, d.scope, "Item", "bucket", temporal.Int(3))
						if err != nil {
							return nil, err
						}
						query.Filter = &vector.Filter{IDs: ids}
					}
					return d.store.Search(d.scope, query)
				}
				measure(b, search, d.truth[filter.filtered])
				if perVector, ok := d.memory[path.name]; ok {
					b.ReportMetric(perVector, "bytes/vector")
				}
				if path.name == "ann" {
					b.ReportMetric(d.built.Seconds(), "build-s")
				}
			})
		}
	}
}

// measure runs search over the queries in turn and reports the rate, the
// CPU time per query and the recall against truth, the exact answer of
// each query.
func measure(b *testing.B, search func(q []float32) ([]vector.Hit, error), truth [][]uuid.UUID) {
	hits, i := 0, 0
	cpu0 := cpuTime()
	for b.Loop() {
		got, err := search(bench.queries[i%benchQueries])
		if err != nil {
			b.Fatal(err)
		}
		hits += found(got, truth[i%benchQueries])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
	// CPU time per query is the load-independent figure on a shared
	// machine, where wall-clock rates depend on neighbours.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(hits)/float64(benchK*i), "recall@10")
}

// BenchmarkKNNSelectivity finds where an approximate search should stop
// walking the graph and scan the vectors its filter allows
// (Options.ExactBelow): for filters that allow from 1,000 to 20,000 of the
// 100,000 vectors (given as ids, so no bitmap query is timed), it measures
// path=exact, the exact scan of the allowed vectors, and path=ann, the
// graph walk of a second store that always walks (ExactBelow < 0; its
// Warm builds a second graph first).
func BenchmarkKNNSelectivity(b *testing.B) {
	d := loadBench(b)
	walk := vector.NewWithOptions(d.eng, vector.Options{ExactBelow: -1})
	defer walk.Close()
	if err := walk.Warm(d.scope, "bench"); err != nil {
		b.Fatal(err)
	}
	for _, allowed := range []int{1000, 2000, 5000, 10000, 20000} {
		every := benchVectors / allowed
		pick := func(i int) bool { return i%every == 0 }
		filter := &vector.Filter{}
		for i, id := range d.ids {
			if pick(i) {
				filter.IDs = append(filter.IDs, id)
			}
		}
		truth := d.answers(pick)
		for _, path := range []struct {
			name   string
			store  *vector.Store
			method vector.Method
		}{{"exact", d.store, vector.Exact}, {"ann", walk, vector.Approximate}} {
			b.Run(fmt.Sprintf("allowed=%d/path=%s", allowed, path.name), func(b *testing.B) {
				measure(b, func(q []float32) ([]vector.Hit, error) {
					return path.store.Search(d.scope, vector.Query{Model: "bench", Vector: q, K: benchK, At: vector.Latest, Filter: filter, Method: path.method})
				}, truth)
			})
		}
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
