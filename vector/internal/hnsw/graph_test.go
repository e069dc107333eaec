package hnsw

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// points is a Space over float32 vectors with the squared L2 distance.
type points [][]float32

func (p points) Distance(a, b uint32) float32 { return l2(p[a], p[b]) }

func l2(a, b []float32) float32 {
	var s float32
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}

func randomPoints(n, dim int, seed uint64) points {
	r := rand.New(rand.NewPCG(seed, 1))
	p := make(points, n)
	for i := range p {
		p[i] = make([]float32, dim)
		for j := range p[i] {
			p[i][j] = r.Float32()*2 - 1
		}
	}
	return p
}

func build(t testing.TB, p points, c Config) *Graph {
	t.Helper()
	g := New(c)
	for range p {
		g.Add(p)
	}
	return g
}

// exact is the brute-force answer: the k allowed points nearest to q by
// (distance, id).
func exact(p points, q []float32, k int, allow func(uint32) bool) []Result {
	var all []Result
	for i := range p {
		if allow == nil || allow(uint32(i)) {
			all = append(all, Result{ID: uint32(i), Distance: l2(q, p[i])})
		}
	}
	slices.SortFunc(all, func(a, b Result) int {
		return compare(newItem(a.Distance, a.ID), newItem(b.Distance, b.ID))
	})
	return all[:min(k, len(all))]
}

func overlap(got, want []Result) int {
	n := 0
	for _, g := range got {
		for _, w := range want {
			if g.ID == w.ID {
				n++
				break
			}
		}
	}
	return n
}

// TestRecall measures recall@10 against brute force on 1,500 random
// points of 24 dimensions, unfiltered, with filters of 10% and 3% (walked
// as sparse) and of 50% and 25% (walked as dense): at ef = 64 it must
// reach 0.95. Every filtered answer must hold allowed nodes only, nearest
// first, with the distances the space gives.
func TestRecall(t *testing.T) {
	const n, dim, k, queries = 1500, 24, 10, 60
	p := randomPoints(n, dim, 1)
	g := build(t, p, Config{Seed: 7})
	qs := randomPoints(queries, dim, 2)
	for _, tc := range []struct {
		name  string
		allow func(uint32) bool
		dense bool
	}{
		{"none", nil, false},
		{"10pct", func(id uint32) bool { return id%10 == 3 }, false},
		{"3pct", func(id uint32) bool { return id%33 == 5 }, false},
		{"50pct dense", func(id uint32) bool { return id%2 == 0 }, true},
		{"25pct dense", func(id uint32) bool { return id%4 == 1 }, true},
	} {
		hits := 0
		for _, q := range qs {
			query := func(id uint32) float32 { return l2(q, p[id]) }
			got := g.SearchQuery(QueryFunc(query), k, 64, Filter{Allowed: bitsetOf(n, tc.allow), Dense: tc.dense}, nil)
			if len(got) != k {
				t.Fatalf("%s: %d results, want %d", tc.name, len(got), k)
			}
			for i, r := range got {
				if tc.allow != nil && !tc.allow(r.ID) {
					t.Fatalf("%s: result %d is not allowed", tc.name, r.ID)
				}
				if r.Distance != l2(q, p[r.ID]) {
					t.Fatalf("%s: result %d has distance %v, want %v", tc.name, r.ID, r.Distance, l2(q, p[r.ID]))
				}
				if i > 0 && compare(newItem(got[i-1].Distance, got[i-1].ID), newItem(r.Distance, r.ID)) > 0 {
					t.Fatalf("%s: results out of order: %v", tc.name, got)
				}
			}
			hits += overlap(got, exact(p, q, k, tc.allow))
		}
		recall := float64(hits) / float64(k*queries)
		t.Logf("filter %s: recall@%d = %.4f", tc.name, k, recall)
		if recall < 0.95 {
			t.Errorf("filter %s: recall@%d = %.4f, want at least 0.95", tc.name, k, recall)
		}
	}
}

// TestSmallGraphs: graphs of 0 to 40 nodes, where the walk reaches every
// node, answer exactly, for every k and a filter that allows nothing.
func TestSmallGraphs(t *testing.T) {
	for n := range 41 {
		p := randomPoints(n, 3, uint64(n))
		g := build(t, p, Config{M: 4, Seed: uint64(n)})
		if g.Len() != n {
			t.Fatalf("len = %d, want %d", g.Len(), n)
		}
		q := randomPoints(1, 3, 99)[0]
		query := func(id uint32) float32 { return l2(q, p[id]) }
		for _, k := range []int{0, 1, 5, n, n + 3} {
			got := g.Search(query, k, n+3, nil)
			want := exact(p, q, k, nil)
			if k == 0 {
				want = nil
			}
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d k=%d: %v, want %v", n, k, got, want)
			}
		}
		if got := g.Search(query, 3, 8, func(uint32) bool { return false }); len(got) != 0 {
			t.Fatalf("n=%d: a filter that allows nothing found %v", n, got)
		}
	}
}

// TestDeterministic: the same inserts with the same seed give the same
// answers; ties between equal distances are broken by id.
func TestDeterministic(t *testing.T) {
	p := make(points, 300)
	for i := range p {
		p[i] = []float32{float32(i % 7), float32(i % 5)} // many duplicates
	}
	q := []float32{3, 2}
	query := func(id uint32) float32 { return l2(q, p[id]) }
	a := build(t, p, Config{M: 6, Seed: 3}).Search(query, 20, 40, nil)
	b := build(t, p, Config{M: 6, Seed: 3}).Search(query, 20, 40, nil)
	if !slices.Equal(a, b) {
		t.Fatalf("two builds answer differently:\n%v\n%v", a, b)
	}
	for i := 1; i < len(a); i++ {
		if a[i-1].Distance == a[i].Distance && a[i-1].ID > a[i].ID {
			t.Fatalf("tie not broken by id: %v", a)
		}
	}
}

// TestFilterFarFromEntry: a filter whose allowed nodes all lie in one
// corner of the space, away from the walk's entry, returns allowed nodes
// only, nearest first; it may return fewer than k (the caller then scans
// the allowed nodes exactly), never a rejected node.
func TestFilterFarFromEntry(t *testing.T) {
	p := randomPoints(1000, 8, 4)
	g := build(t, p, Config{M: 8, Seed: 5})
	corner := func(id uint32) bool { return p[id][0] > 0.9 && p[id][1] > 0.9 }
	q := []float32{1, 1, 0, 0, 0, 0, 0, 0}
	got := g.Search(func(id uint32) float32 { return l2(q, p[id]) }, 10, 32, corner)
	for i, r := range got {
		if !corner(r.ID) || (i > 0 && compare(newItem(got[i-1].Distance, got[i-1].ID), newItem(r.Distance, r.ID)) > 0) {
			t.Fatalf("answer %v", got)
		}
	}
}

// nanSpace measures NaN between some pairs.
type nanSpace struct{ points }

func (s nanSpace) Distance(a, b uint32) float32 {
	if (a+b)%3 == 0 {
		return float32(math.NaN())
	}
	return s.points.Distance(a, b)
}

// TestNaNDistances: NaN distances are read as +Inf; nothing panics and
// every answer stays ordered and free of NaN.
func TestNaNDistances(t *testing.T) {
	p := randomPoints(200, 4, 5)
	g := New(Config{M: 4})
	s := nanSpace{p}
	for range p {
		g.Add(s)
	}
	query := func(id uint32) float32 { return s.Distance(id, 0) }
	got := g.Search(query, 10, 20, nil)
	for i, r := range got {
		if r.Distance != r.Distance || (i > 0 && got[i-1].Distance > r.Distance) {
			t.Fatalf("answer %v", got)
		}
	}
}

// BenchmarkBuild and BenchmarkSearch measure the graph alone on 20,000
// random points of 128 dimensions (the distance is plain Go here).
func BenchmarkSearch(b *testing.B) {
	const n, dim = 20000, 128
	p := randomPoints(n, dim, 1)
	g := build(b, p, Config{Seed: 1})
	qs := randomPoints(64, dim, 2)
	i := 0
	for b.Loop() {
		q := qs[i%len(qs)]
		g.Search(func(id uint32) float32 { return l2(q, p[id]) }, 10, 64, nil)
		i++
	}
}

// TestItemOrder: an item packs a distance and an id into a word that
// orders as the pair does (distance, then id; -0 ties with +0), and gives
// both back.
func TestItemOrder(t *testing.T) {
	values := []float32{float32(math.Inf(-1)), -math.MaxFloat32, -3, -1, -math.SmallestNonzeroFloat32, 0, math.SmallestNonzeroFloat32, 1e-30, 0.5, 1, 2, math.MaxFloat32, float32(math.Inf(1))}
	ids := []uint32{0, 1, 7, math.MaxUint32}
	for _, a := range values {
		for _, b := range values {
			for _, ia := range ids {
				for _, ib := range ids {
					x, y := newItem(a, ia), newItem(b, ib)
					want := a < b || (a == b && ia < ib)
					if x.before(y) != want {
						t.Fatalf("(%v, %d) before (%v, %d) = %t, want %t", a, ia, b, ib, x.before(y), want)
					}
					if x.dist() != a || x.node() != ia {
						t.Fatalf("item of (%v, %d) gives back (%v, %d)", a, ia, x.dist(), x.node())
					}
				}
			}
		}
	}
	if z := newItem(float32(math.Copysign(0, -1)), 3); z != newItem(0, 3) {
		t.Fatalf("-0 and +0 make different items")
	}
}

// batchedPoints is points as a QuerySpace.
type batchedPoints struct{ points }

func (p batchedPoints) From(a uint32) Query {
	return QueryFunc(func(b uint32) float32 { return p.Distance(a, b) })
}

// TestQuerySpaceBuildsTheSameGraph: Add through a QuerySpace's batched
// queries builds the graph a plain Space builds, answer for answer.
func TestQuerySpaceBuildsTheSameGraph(t *testing.T) {
	p := randomPoints(800, 8, 6)
	plain, batched := New(Config{M: 6, Seed: 2}), New(Config{M: 6, Seed: 2})
	for range p {
		plain.Add(p)
		batched.Add(batchedPoints{p})
	}
	for _, q := range randomPoints(20, 8, 7) {
		query := func(id uint32) float32 { return l2(q, p[id]) }
		a, b := plain.Search(query, 10, 32, nil), batched.Search(query, 10, 32, nil)
		if !slices.Equal(a, b) {
			t.Fatalf("plain and batched builds answer differently:\n%v\n%v", a, b)
		}
	}
}

// TestSearchBesideAdd runs searches on published snapshots while one
// goroutine adds nodes, as telha.dev/vector does (run it with -race).
// Every answer holds nodes of its snapshot only, nearest first with the
// distances the space gives, and once the adds are done a snapshot
// reaches the recall a graph built alone does.
func TestSearchBesideAdd(t *testing.T) {
	const n, dim, k = 1200, 16, 10
	p := randomPoints(n, dim, 7)
	queries := randomPoints(40, dim, 8)
	g := New(Config{Seed: 3})
	var published atomic.Pointer[View]
	published.Store(g.Snapshot())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range p {
			g.Add(p)
			published.Store(g.Snapshot())
		}
	}()
	var wg sync.WaitGroup
	for r := range 2 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				v := published.Load()
				q := queries[(i+r)%len(queries)]
				got := v.Search(func(id uint32) float32 { return l2(q, p[id]) }, k, 32, nil)
				for j, res := range got {
					if int(res.ID) >= v.Len() {
						t.Errorf("answer holds node %d of a snapshot of %d", res.ID, v.Len())
					}
					if res.Distance != l2(q, p[res.ID]) {
						t.Errorf("node %d: distance %v, want %v", res.ID, res.Distance, l2(q, p[res.ID]))
					}
					if j > 0 && compare(newItem(got[j-1].Distance, got[j-1].ID), newItem(res.Distance, res.ID)) > 0 {
						t.Errorf("answer out of order at %d: %v", j, got)
					}
				}
			}
		})
	}
	wg.Wait()
	v := published.Load()
	hits := 0
	for _, q := range queries {
		got := v.Search(func(id uint32) float32 { return l2(q, p[id]) }, k, 64, nil)
		hits += overlap(got, exact(p, q, k, nil))
	}
	if recall := float64(hits) / float64(k*len(queries)); recall < 0.95 {
		t.Errorf("recall@%d after the adds = %.3f, want at least 0.95", k, recall)
	}
}
