package vector

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// clusteredVectors returns n vectors of dim components around 20 centres,
// the shape of real embeddings at a small scale, and the cluster of each.
func clusteredVectors(n, dim int, seed uint64) ([][]float32, []int) {
	rng := rand.New(rand.NewPCG(seed, 9))
	centres := make([][]float32, 20)
	for i := range centres {
		centres[i] = make([]float32, dim)
		for j := range centres[i] {
			centres[i][j] = float32(rng.NormFloat64())
		}
	}
	vecs, of := make([][]float32, n), make([]int, n)
	for i := range vecs {
		of[i] = rng.IntN(len(centres))
		vecs[i] = make([]float32, dim)
		for j := range vecs[i] {
			vecs[i][j] = centres[of[i]][j] + 0.3*float32(rng.NormFloat64())
		}
	}
	return vecs, of
}

// annFixture is one tenant with vectors of dim dimensions under a model
// of metric, in a store whose approximate searches always walk the graph.
type annFixture struct {
	s      *Store
	scope  storage.TenantScope
	metric Metric
	dim    int
	ids    []uuid.UUID
	vecs   [][]float32
	of     []int
}

func newANNFixture(t testing.TB, e storage.Engine, n int, metric Metric) *annFixture {
	t.Helper()
	return newANNFixtureOf(t, e, n, metric, 16)
}

// fixtureDims are the dimensions the approximate tests run at: a multiple
// of the kernels' 16 lanes, and one with a tail of 5 (which the kernels
// load masked).
var fixtureDims = []int{16, 21}

func newANNFixtureOf(t testing.TB, e storage.Engine, n int, metric Metric, dim int) *annFixture {
	t.Helper()
	f := &annFixture{s: NewWithOptions(e, Options{ExactBelow: -1}), scope: storagetest.TenantScope(t), metric: metric, dim: dim}
	ids := rand.NewChaCha8([32]byte{1}) // ids fix the load order, so the graph is the same every run
	t.Cleanup(func() { _ = f.s.Close() })
	m := mustRegister(t, f.s, "ann", dim, metric)
	f.vecs, f.of = clusteredVectors(n, dim, 1)
	var b storage.Batch
	for _, v := range f.vecs {
		id, err := uuid.NewRandomFromReader(ids)
		if err != nil {
			t.Fatal(err)
		}
		f.ids = append(f.ids, id)
		if err := f.s.Stage(&b, f.scope, m, id, 1, 10, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.s.Write(&b); err != nil {
		t.Fatal(err)
	}
	return f
}

// recallAgainstExact runs each query approximately and exactly and
// returns the share of exact hits the approximate search found. Every
// approximate hit must be an exact candidate with its exact distance.
func (f *annFixture) recallAgainstExact(t *testing.T, queries [][]float32, filter *Filter) float64 {
	t.Helper()
	found, total := 0, 0
	for _, q := range queries {
		query := Query{Model: "ann", Vector: q, K: 10, At: Latest, Filter: filter}
		exact, err := f.s.Search(f.scope, query)
		if err != nil {
			t.Fatal(err)
		}
		query.Method = Approximate
		approx, err := f.s.Search(f.scope, query)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.IsSortedFunc(approx, compareHits) || len(approx) > len(exact) {
			t.Fatalf("approximate answer %v against exact %v", approx, exact)
		}
		for _, h := range approx {
			i := slices.Index(f.ids, h.Node)
			if i < 0 || (filter != nil && !slices.Contains(filter.IDs, h.Node)) {
				t.Fatalf("approximate hit %v is not a candidate", h)
			}
			if want := distance(f.metric, q, f.vecs[i], norm(q)); h.Distance != want {
				t.Fatalf("approximate hit %v: distance %v, want the exact %v", h, h.Distance, want)
			}
			if slices.ContainsFunc(exact, func(e Hit) bool { return e.Node == h.Node }) {
				found++
			}
		}
		total += len(exact)
	}
	return float64(found) / float64(total)
}

// exactMatchesStore checks that exact searches of the index answer each
// query as the store path does, to the bit, unfiltered and with a filter
// of every other vector, at several k: once the graph is built they
// measure the rows' codes first (exactCodes), and the codes' interval
// must never drop a row of the answer.
func (f *annFixture) exactMatchesStore(t *testing.T, queries [][]float32) {
	t.Helper()
	half := &Filter{}
	for i := 0; i < len(f.ids); i += 2 {
		half.IDs = append(half.IDs, f.ids[i])
	}
	for _, filter := range []*Filter{nil, half} {
		for _, q := range queries {
			for _, k := range []int{1, 10, 60} {
				query := Query{Model: "ann", Vector: q, K: k, At: Latest, Filter: filter}
				got, err := f.s.Search(f.scope, query)
				if err != nil {
					t.Fatal(err)
				}
				query.Method = FromStore
				want, err := f.s.Search(f.scope, query)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					i := 0
					for i < min(len(got), len(want)) && got[i] == want[i] {
						i++
					}
					t.Fatalf("k=%d, filtered %t: exact search of the index and the store's differ at hit %d of %d and %d: %v against %v",
						k, filter != nil, i, len(got), len(want), got[i:min(i+1, len(got))], want[i:min(i+1, len(want))])
				}
			}
		}
	}
}

// TestApproximateRecall: on 3,000 clustered vectors the graph reaches a
// recall@10 of 0.95 against the exact search under Cosine and L2 (0.7
// under Dot, where no triangle inequality guides the walk), unfiltered,
// with a filter of 10% and with a filter that holds one cluster only (the
// allowed nodes all lie in one region, which a filtered walk from
// elsewhere may not reach); the walk over the rows' int8 codes loses at
// most 0.02 of the recall of a walk over their float32 rows; and vectors
// written after the graph was built are found.
func TestApproximateRecall(t *testing.T) {
	for _, c := range []struct {
		metric Metric
		floor  float64
	}{{Cosine, 0.95}, {Dot, 0.7}, {L2, 0.95}} {
		for _, dim := range fixtureDims {
			t.Run(fmt.Sprintf("%s/dim=%d", c.metric, dim), func(t *testing.T) { testApproximateRecall(t, c.metric, c.floor, dim) })
		}
	}
}

func testApproximateRecall(t *testing.T, metric Metric, floor float64, dim int) {
	f := newANNFixtureOf(t, storage.NewMemoryEngine(), 3000, metric, dim)
	if err := f.s.Warm(f.scope, "ann"); err != nil {
		t.Fatal(err)
	}
	queries, _ := clusteredVectors(50, dim, 2)
	tenth, cluster := &Filter{}, &Filter{}
	for i, id := range f.ids {
		if i%10 == 3 {
			tenth.IDs = append(tenth.IDs, id)
		}
		if f.of[i] == 7 {
			cluster.IDs = append(cluster.IDs, id)
		}
	}
	for name, filter := range map[string]*Filter{"none": nil, "10pct": tenth, "one cluster": cluster} {
		r := f.recallAgainstExact(t, queries, filter)
		f.setQuantized(t, false)
		float := f.recallAgainstExact(t, queries, filter)
		f.setQuantized(t, true)
		t.Logf("filter %s: recall@10 %.3f (float32 walk %.3f)", name, r, float)
		if r < floor || r < float-0.02 {
			t.Errorf("filter %s: recall@10 %.3f, want at least %.2f and %.3f", name, r, floor, float-0.02)
		}
	}

	// New vectors land in the tail until the builder inserts them: an
	// approximate search finds each, right after its write.
	for i, q := range queries[:10] {
		id := uuid.New()
		if err := f.s.Put(f.scope, id, "ann", 1, 10, q); err != nil {
			t.Fatal(err)
		}
		f.ids, f.vecs = append(f.ids, id), append(f.vecs, q)
		hits, err := f.s.Search(f.scope, Query{Model: "ann", Vector: q, K: 1, At: Latest, Method: Approximate})
		if err != nil || len(hits) != 1 || (metric != Dot && hits[0].Node != id) {
			t.Fatalf("write %d: approximate search for the new vector = %v, %v", i, hits, err)
		}
	}
}

// setQuantized makes the fixture's graph walk over the int8 codes of its
// rows, or over the rows themselves; the codes stay.
func (f *annFixture) setQuantized(t *testing.T, on bool) {
	t.Helper()
	ix := f.s.mem.existing(indexKey{scope: f.scope, model: storage.ModelIDOf("ann")})
	ix.mu.Lock()
	defer ix.unlock()
	a := ix.mats[f.dim].ann
	if len(a.scales) != a.graph.Len() {
		t.Fatalf("%d codes for a graph of %d", len(a.scales), a.graph.Len())
	}
	a.quantized = on
}

// TestApproximateExtremeRows: rows the int8 codes cannot scale (zeros),
// (but Cosine, which refuses them), rows whose float32 distances overflow
// (components near the largest float32) and rows of tiny components,
// among ordinary ones, still give answers of candidates with their exact
// distances, in order, under every metric; and exact searches, which
// measure the codes first, still give the store's answer.
func TestApproximateExtremeRows(t *testing.T) {
	for _, metric := range []Metric{Cosine, Dot, L2} {
		for _, dim := range fixtureDims {
			t.Run(fmt.Sprintf("%s/dim=%d", metric, dim), func(t *testing.T) { testApproximateExtremeRows(t, metric, dim) })
		}
	}
}

func testApproximateExtremeRows(t *testing.T, metric Metric, dim int) {
	f := newANNFixtureOf(t, storage.NewMemoryEngine(), 600, metric, dim)
	var b storage.Batch
	m, err := f.s.Model("ann")
	if err != nil {
		t.Fatal(err)
	}
	for i, scale := range []float32{0, 1e-30, 1e-38, 1e18, 1e38} {
		if scale == 0 && metric == Cosine {
			continue // a zero vector is no direction: Stage refuses it
		}
		for j := range 20 {
			v := make([]float32, dim)
			for c := range v {
				v[c] = scale * float32((i+j+c)%7-3)
			}
			id := uuid.New()
			if err := f.s.Stage(&b, f.scope, m, id, 1, 10, v); err != nil {
				t.Fatal(err)
			}
			f.ids, f.vecs = append(f.ids, id), append(f.vecs, v)
		}
	}
	if err := f.s.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Warm(f.scope, "ann"); err != nil {
		t.Fatal(err)
	}
	queries, _ := clusteredVectors(20, dim, 3)
	queries = append(queries, f.vecs[600:]...)
	f.recallAgainstExact(t, queries, nil)
	f.exactMatchesStore(t, queries)
}

// TestApproximateBeforeGraph: the first approximate search of a tenant
// and model is answered exactly and starts the graph; until Warm returns
// or the builder catches up, answers stay complete.
func TestApproximateBeforeGraph(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		f := newANNFixture(t, e, 500, Cosine)
		q := f.vecs[17]
		exact, err := f.s.Search(f.scope, Query{Model: "ann", Vector: q, K: 5, At: Latest})
		if err != nil {
			t.Fatal(err)
		}
		approx, err := f.s.Search(f.scope, Query{Model: "ann", Vector: q, K: 5, At: Latest, Method: Approximate})
		if err != nil || !slices.Equal(approx, exact) {
			t.Fatalf("first approximate search = %v, %v; want the exact %v", approx, err, exact)
		}
		if err := f.s.Warm(f.scope, "ann"); err != nil {
			t.Fatal(err)
		}
		ix := f.s.mem.existing(indexKey{scope: f.scope, model: storage.ModelIDOf("ann")})
		mx := ix.view.Load().mats[16]
		built := mx.ann != nil && mx.ann.graph.Len() == mx.slots()
		if !built {
			t.Fatal("Warm returned before the graph held every vector")
		}
	})
}

// BenchmarkApproximateSearch measures one approximate search of 3,000
// clustered vectors on the memory engine, for its allocations: the answer
// should be the only one (-benchmem; the race detector's pools drop
// scratch on purpose, so it is no test).
func BenchmarkApproximateSearch(b *testing.B) {
	f := newANNFixture(b, storage.NewMemoryEngine(), 3000, Cosine)
	if err := f.s.Warm(f.scope, "ann"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var hits []Hit
	i := 0
	for b.Loop() {
		q := Query{Model: "ann", Vector: f.vecs[i%len(f.vecs)], K: 10, At: Latest, Method: Approximate}
		var err error
		if hits, err = f.s.AppendSearch(hits[:0], f.scope, q); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// TestAppendSearch: AppendSearch answers as Search does, after what dst
// holds, which it leaves alone, whether dst has room or not, and returns
// dst itself with an error.
func TestAppendSearch(t *testing.T) {
	f := newANNFixture(t, storage.NewMemoryEngine(), 400, Cosine)
	if err := f.s.Warm(f.scope, "ann"); err != nil {
		t.Fatal(err)
	}
	prefix := []Hit{{Node: f.ids[0], Distance: -1}, {Node: f.ids[1], Distance: -2}}
	for _, method := range []Method{Exact, Approximate, FromStore} {
		q := Query{Model: "ann", Vector: f.vecs[7], K: 10, At: Latest, Method: method}
		want, err := f.s.Search(f.scope, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, room := range []int{0, 3, 10, 100} {
			dst := append(make([]Hit, 0, len(prefix)+room), prefix...)
			got, err := f.s.AppendSearch(dst, f.scope, q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got[:len(prefix)], prefix) || !slices.Equal(got[len(prefix):], want) {
				t.Errorf("%v, room %d: AppendSearch = %v, want %v then %v", method, room, got, prefix, want)
			}
			if room >= q.K && &got[0] != &dst[0] {
				t.Errorf("%v, room %d: AppendSearch did not answer in dst's room", method, room)
			}
		}
	}
	bad := Query{Model: "ann", Vector: f.vecs[7][:3], K: 10, At: Latest}
	got, err := f.s.AppendSearch(prefix, f.scope, bad)
	if !errors.Is(err, ErrDimensionMismatch) {
		t.Errorf("AppendSearch of a short vector: err = %v", err)
	}
	if !slices.Equal(got, prefix) {
		t.Errorf("AppendSearch with an error = %v, want dst %v", got, prefix)
	}
}
