package vector_test

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/viterin/vek/vek32"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/vector"
)

// BenchmarkPeer is the side-by-side benchmark against a peer HNSW library
// (BENCHMARKS.md): each data set of peerVectors vectors (clustered,
// uniform; the seeded generators of BenchmarkKNN), peerQueries queries
// drawn from the same distribution, brute-force ground truth, then a sweep
// of efSearch over the approximate path, unfiltered and with filters of
// 1%, 10% and 50% of the vectors. It reports, per data set and filter,
// the rate (from CPU time, one goroutine) at the smallest ef that reaches
// recall@10 0.95 and 0.99, the time Warm took to build the graph and the
// heap the index holds per vector.
//
// With -peer.out DIR it writes each data set, its queries and its ground
// truth to DIR/NAME.bin (layout in writePeerFile), so that a peer program
// answers the very same queries.
var (
	peerOut     = flag.String("peer.out", "", "directory to write the data sets for a peer program to")
	peerData    = flag.String("peer.data", "clustered,uniform", "data sets of BenchmarkPeer")
	peerN       = flag.Int("peer.n", 100_000, "vectors per data set of BenchmarkPeer")
	peerDim     = flag.Int("peer.dim", benchDim, "dimensions of BenchmarkPeer's vectors")
	peerScaling = flag.Int("peer.scaling", 0, "ef of BenchmarkPeer's 1 and 2 goroutine runs (0: none)")
	peerOnly    = flag.String("peer.filters", "none,10pct,1pct,50pct", "filters of BenchmarkPeer")
	peerRounds  = flag.Int("peer.rounds", 1, "times BenchmarkPeer runs the queries at each ef and in its scaling runs (more samples for a profile)")
)

const peerQueries = 1000

// peerEfs is the sweep of efSearch.
var peerEfs = []int{10, 16, 24, 32, 40, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024}

// peerFilters are the filters of the sweep: vector i is allowed when
// i % mod == rem.
var peerFilters = []peerFilter{{"none", 1, 0}, {"10pct", 10, 3}, {"1pct", 100, 7}, {"50pct", 2, 0}, {"5pct", 20, 11}, {"20pct", 5, 2}}

type peerFilter struct {
	name     string
	mod, rem int
}

// allow returns the filter as a function, nil for none.
func (f peerFilter) allow() func(i int) bool {
	if f.mod == 1 {
		return nil
	}
	return func(i int) bool { return i%f.mod == f.rem }
}

// peerSet is one data set loaded into a store.
type peerSet struct {
	vecs, queries [][]float32
	truth         [][][]int32 // by filter, by query: the indexes of the exact k nearest
}

func BenchmarkPeer(b *testing.B) {
	for _, name := range strings.Split(*peerData, ",") {
		b.Run("data="+name, func(b *testing.B) { benchPeer(b, name) })
	}
}

func benchPeer(b *testing.B, name string) {
	generate, ok := generators[name]
	if !ok {
		b.Fatalf("-peer.data %q: want clustered or uniform", name)
	}
	set := makePeerSet(generate, *peerN, *peerDim)
	if *peerOut != "" {
		if err := writePeerFile(filepath.Join(*peerOut, name+".bin"), set); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	db, err := rocksdb.Open(rocksdb.Config{Path: dir, CreateIfMissing: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	base := vector.New(db)
	defer base.Close()
	scope, err := storage.NewTenantScope(uuid.New(), uuid.New())
	if err != nil {
		b.Fatal(err)
	}
	model, err := base.RegisterModel("peer", *peerDim, vector.Cosine, 1)
	if err != nil {
		b.Fatal(err)
	}
	ids := writeVectors(b, base, scope, model, set.vecs)
	heap0 := heapBytes()
	if _, err := base.Search(scope, vector.Query{Model: "peer", Vector: set.queries[0], K: 1, At: vector.Latest}); err != nil {
		b.Fatal(err)
	}
	cpu0, wall0 := cpuTime(), time.Now()
	if err := base.Warm(scope, "peer"); err != nil {
		b.Fatal(err)
	}
	buildCPU, buildWall := cpuTime()-cpu0, time.Since(wall0)
	perVector := float64(heapBytes()-heap0) / float64(len(set.vecs))
	b.Logf("%s: %d vectors, graph built in %.1f s CPU (%.1f s wall); index heap %.0f bytes/vector (%.1f MB); %+v",
		name, len(set.vecs), buildCPU.Seconds(), buildWall.Seconds(), perVector, perVector*float64(len(set.vecs))/1e6, base.MemoryStats())

	for f, filter := range peerFilters {
		if !slices.Contains(strings.Split(*peerOnly, ","), filter.name) {
			continue
		}
		var fl *vector.Filter
		if allow := filter.allow(); allow != nil {
			fl = &vector.Filter{}
			for i, id := range ids {
				if allow(i) {
					fl.IDs = append(fl.IDs, id)
				}
			}
		}
		want := make([][]uuid.UUID, len(set.queries))
		for q, t := range set.truth[f] {
			for _, i := range t {
				want[q] = append(want[q], ids[i])
			}
		}
		at95, at99 := "-", "-"
		for _, ef := range peerEfs {
			s := vector.NewWithOptions(db, vector.Options{EfSearch: ef})
			hits := 0
			// The rate is from the CPU time of the searching thread, the
			// measure hnswlib's single-threaded process gives; the
			// process's CPU time, logged beside it, also holds RocksDB's
			// background threads and the garbage collector's workers.
			// One search before the clock starts loads the new Store's
			// index from RocksDB (a scan of the tenant's vectors),
			// which hnswlib's timed loop has no counterpart of either.
			if _, err := s.Search(scope, vector.Query{Model: "peer", Vector: set.queries[0], K: benchK, At: vector.Latest, Filter: fl, Method: vector.Approximate}); err != nil {
				b.Fatal(err)
			}
			// The answers go into one reused slice (AppendSearch), as a
			// server answering from a per-connection buffer would do.
			var got []vector.Hit
			runtime.LockOSThread()
			cpu, proc := threadCPUTime(), cpuTime()
			for range *peerRounds {
				for q, v := range set.queries {
					var err error
					got, err = s.AppendSearch(got[:0], scope, vector.Query{Model: "peer", Vector: v, K: benchK, At: vector.Latest, Filter: fl, Method: vector.Approximate})
					if err != nil {
						b.Fatal(err)
					}
					hits += found(got, want[q])
				}
			}
			used, procUsed := threadCPUTime()-cpu, cpuTime()-proc
			runtime.UnlockOSThread()
			_ = s.Close()
			n := *peerRounds * len(set.queries)
			recall := float64(hits) / float64(benchK*n)
			qps := float64(n) / used.Seconds()
			b.Logf("%s filter=%s ef=%d: %.0f q/s (CPU), recall@10 %.4f (%.0f q/s of the process's CPU)", name, filter.name, ef, qps, recall, float64(n)/procUsed.Seconds())
			if at95 == "-" && recall >= 0.95 {
				at95 = fmt.Sprintf("%.0f q/s (ef %d, recall %.4f)", qps, ef, recall)
			}
			if recall >= 0.99 {
				at99 = fmt.Sprintf("%.0f q/s (ef %d, recall %.4f)", qps, ef, recall)
				break
			}
		}
		b.Logf("%s filter=%s: recall 0.95 at %s; recall 0.99 at %s", name, filter.name, at95, at99)
	}
	if *peerScaling > 0 {
		s := vector.NewWithOptions(db, vector.Options{EfSearch: *peerScaling})
		defer s.Close()
		for _, g := range []int{1, 2} {
			cpu, wall := cpuTime(), time.Now()
			var wg sync.WaitGroup
			for w := range g {
				wg.Go(func() {
					for q := w; q < *peerRounds*len(set.queries); q += g {
						if _, err := s.Search(scope, vector.Query{Model: "peer", Vector: set.queries[q%len(set.queries)], K: benchK, At: vector.Latest, Method: vector.Approximate}); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			n := float64(*peerRounds * len(set.queries))
			b.Logf("%s ef=%d, %d goroutines: %.0f q/s (wall), %.0f q/s per CPU second", name, *peerScaling, g, n/time.Since(wall).Seconds(), n/(cpuTime()-cpu).Seconds())
		}
	}
}

// writeVectors writes vecs under model in scope, a node each (version 7
// ids, as the store makes them) at valid start 1 and tx start 10, in
// batches of 1,000, and returns the nodes.
func writeVectors(b *testing.B, s *vector.Store, scope storage.TenantScope, model vector.Model, vecs [][]float32) []uuid.UUID {
	b.Helper()
	ids := make([]uuid.UUID, len(vecs))
	var batch storage.Batch
	for i, v := range vecs {
		var err error
		if ids[i], err = uuid.NewV7(); err != nil {
			b.Fatal(err)
		}
		if err := s.Stage(&batch, scope, model, ids[i], 1, 10, v); err != nil {
			b.Fatal(err)
		}
		if batch.Len() == 1000 || i == len(vecs)-1 {
			if err := s.Write(&batch); err != nil {
				b.Fatal(err)
			}
			batch.Reset()
		}
	}
	return ids
}

// makePeerSet draws n vectors of dim dimensions and peerQueries queries
// with generate and computes the ground truth of every filter.
func makePeerSet(generate func(seed uint64, dim int) func() []float32, n, dim int) peerSet {
	var set peerSet
	next := generate(1, dim)
	for range n {
		set.vecs = append(set.vecs, next())
	}
	nextQuery := generate(2, dim)
	for range peerQueries {
		set.queries = append(set.queries, nextQuery())
	}
	set.truth = make([][][]int32, len(peerFilters))
	unit := make([][]float32, n)
	for i, v := range set.vecs {
		unit[i] = vek32.DivNumber(v, vek32.Norm(v))
	}
	dist := make([]float32, n)
	for _, q := range set.queries {
		qu := vek32.DivNumber(q, vek32.Norm(q))
		for i, u := range unit {
			dist[i] = 1 - vek32.Dot(qu, u)
		}
		for f, filter := range peerFilters {
			set.truth[f] = append(set.truth[f], nearestK(set.vecs, q, dist, filter.allow()))
		}
	}
	return set
}

// nearestK returns the indexes of the benchK vectors nearest to q among
// those allow selects: the 4·benchK nearest by the float32 distances dist,
// re-ranked by the float64 cosine distance, ties broken by index.
func nearestK(vecs [][]float32, q []float32, dist []float32, allow func(int) bool) []int32 {
	type cand struct {
		i int32
		d float64
	}
	byDistance := func(a, b cand) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.i, b.i)) }
	// pool holds the 4·benchK nearest so far, sorted: one comparison
	// rejects almost every vector, where sorting them all took most of
	// the benchmark's time.
	pool := make([]cand, 0, 4*benchK+1)
	for i, d := range dist {
		if allow != nil && !allow(i) {
			continue
		}
		c := cand{int32(i), float64(d)}
		if len(pool) == cap(pool)-1 && byDistance(c, pool[len(pool)-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(pool, c, byDistance)
		pool = slices.Insert(pool, at, c)
		pool = pool[:min(len(pool), 4*benchK)]
	}
	for j := range pool {
		pool[j].d = cosine64(q, vecs[pool[j].i])
	}
	slices.SortFunc(pool, byDistance)
	out := make([]int32, 0, benchK)
	for _, c := range pool[:min(len(pool), benchK)] {
		out = append(out, c.i)
	}
	return out
}

func cosine64(a, b []float32) float64 {
	var dot, na, nb float64
	for j := range a {
		dot += float64(a[j]) * float64(b[j])
		na += float64(a[j]) * float64(a[j])
		nb += float64(b[j]) * float64(b[j])
	}
	return 1 - dot/(math.Sqrt(na)*math.Sqrt(nb))
}

// writePeerFile writes set for a peer program, little-endian: the magic
// "TVB1"; uint32 n, dim, queries, k, filters; n·dim float32 vectors;
// queries·dim float32 queries; then per filter, in the order of
// peerFilters, its modulus and remainder as two uint32 (vector i is
// allowed when i % modulus == remainder; 1 and 0 for none) and
// queries·k int32 indexes of the exact nearest, nearest first.
func writePeerFile(path string, set peerSet) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("peer file: %w", err)
	}
	w := bufio.NewWriter(f)
	put := func(v any) {
		if err == nil {
			err = binary.Write(w, binary.LittleEndian, v)
		}
	}
	put([]byte("TVB1"))
	put([]uint32{uint32(len(set.vecs)), uint32(len(set.queries[0])), uint32(len(set.queries)), benchK, uint32(len(peerFilters))})
	for _, v := range set.vecs {
		put(v)
	}
	for _, q := range set.queries {
		put(q)
	}
	for fi, filter := range peerFilters {
		put([]uint32{uint32(filter.mod), uint32(filter.rem)})
		for _, t := range set.truth[fi] {
			put(t)
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("peer file %s: %w", path, err)
	}
	return nil
}

// threadCPUTime returns the CPU time of the calling OS thread (Linux's
// RUSAGE_THREAD, which package syscall does not name); the caller locks
// its goroutine to the thread.
func threadCPUTime() time.Duration {
	const rusageThread = 1
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapBytes() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
