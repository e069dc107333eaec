package vector

import (
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// written is one write of the reference model of the property test.
type written struct {
	valid, tx storage.Timestamp
	v         []float32 // nil for a tombstone
}

// reference returns the visible vector of hist as of at by the documented
// rule, computed independently of the store: the latest valid start at or
// before at.Valid among tx starts at or before at.Tx, ties to the latest tx.
func reference(hist []written, at AsOf) []float32 {
	var best *written
	for i := range hist {
		h := &hist[i]
		if h.valid > at.Valid || h.tx > at.Tx {
			continue
		}
		if best == nil || h.valid > best.valid || (h.valid == best.valid && h.tx > best.tx) {
			best = h
		}
	}
	if best == nil {
		return nil
	}
	return best.v
}

// bruteForce sorts every candidate by (distance, id) and keeps k.
func bruteForce(m Model, q []float32, k int, vecs map[uuid.UUID][]float32) []Hit {
	var all []Hit
	for id, v := range vecs {
		all = append(all, Hit{Node: id, Distance: distance(m.Metric, q, v, norm(q))})
	}
	slices.SortFunc(all, compareHits)
	return all[:min(k, len(all))]
}

var propertyModels = []struct {
	name   string
	metric Metric
}{{"prop-cosine", Cosine}, {"prop-dot", Dot}, {"prop-l2", L2}}

const propertyDim = 3

// TestSearchMatchesBruteForce: for random histories (versions, corrections,
// tombstones, several models per node), random times, k and filters, Search
// returns exactly the brute-force answer over the reference as-of reads.
// Each check uses a fresh tenant on one shared engine, so it also checks
// that tenants never see each other's rows.
func TestSearchMatchesBruteForce(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := New(e)
		models := make([]Model, len(propertyModels))
		for i, pm := range propertyModels {
			m, err := s.RegisterModel(pm.name, propertyDim, pm.metric, 0)
			if err != nil {
				t.Fatal(err)
			}
			models[i] = m
		}
		component := rapid.Custom(func(t *rapid.T) float32 {
			// Small integers make ties common, which exercises the tie rule.
			return float32(rapid.IntRange(-3, 3).Draw(t, "c"))
		})
		vec := rapid.Custom(func(t *rapid.T) []float32 {
			for {
				v := rapid.SliceOfN(component, propertyDim, propertyDim).Draw(t, "v")
				if norm(v) != 0 {
					return v
				}
			}
		})
		storagetest.Check(t, env, func(rt *rapid.T) {
			scope := storagetest.TenantScope(t)
			nodes := make([]uuid.UUID, rapid.IntRange(0, 12).Draw(rt, "nodes"))
			for i := range nodes {
				nodes[i] = uuid.New()
			}
			hist := map[uuid.UUID]map[int][]written{} // node -> model index -> versions
			used := map[[3]int64]bool{}               // (node, valid, tx) per model used once
			writes := rapid.IntRange(0, 40).Draw(rt, "writes")
			for range writes {
				if len(nodes) == 0 {
					break
				}
				ni := rapid.IntRange(0, len(nodes)-1).Draw(rt, "node")
				mi := rapid.IntRange(0, len(models)-1).Draw(rt, "model")
				valid := storage.Timestamp(rapid.IntRange(0, 5).Draw(rt, "valid"))
				tx := storage.Timestamp(rapid.IntRange(1, 5).Draw(rt, "tx"))
				if used[[3]int64{int64(ni*len(models) + mi), int64(valid), int64(tx)}] {
					continue
				}
				used[[3]int64{int64(ni*len(models) + mi), int64(valid), int64(tx)}] = true
				node, m := nodes[ni], models[mi]
				var v []float32
				if rapid.IntRange(0, 4).Draw(rt, "tombstone?") == 0 {
					if err := s.Delete(scope, node, m.Name, valid, tx); err != nil {
						rt.Fatal(err)
					}
				} else {
					v = vec.Draw(rt, "vector")
					if err := s.Put(scope, node, m.Name, valid, tx, v); err != nil {
						rt.Fatal(err)
					}
				}
				if hist[node] == nil {
					hist[node] = map[int][]written{}
				}
				hist[node][mi] = append(hist[node][mi], written{valid, tx, v})
			}

			mi := rapid.IntRange(0, len(models)-1).Draw(rt, "query model")
			m := models[mi]
			at := AsOf{
				Valid: storage.Timestamp(rapid.IntRange(-1, 6).Draw(rt, "at valid")),
				Tx:    storage.Timestamp(rapid.IntRange(0, 6).Draw(rt, "at tx")),
			}
			q := Query{Model: m.Name, Vector: vec.Draw(rt, "query"), K: rapid.IntRange(1, 15).Draw(rt, "k"), At: at}
			var filter map[uuid.UUID]bool
			if rapid.Bool().Draw(rt, "filtered?") {
				filter = map[uuid.UUID]bool{}
				q.Filter = &Filter{}
				for _, n := range nodes {
					if rapid.Bool().Draw(rt, "in filter?") {
						filter[n] = true
						q.Filter.IDs = append(q.Filter.IDs, n, n) // duplicates are ignored
					}
				}
				q.Filter.IDs = append(q.Filter.IDs, uuid.New()) // an id with no vector
			}
			live := map[uuid.UUID][]float32{}
			for node, byModel := range hist {
				if filter != nil && !filter[node] {
					continue
				}
				if v := reference(byModel[mi], at); v != nil {
					live[node] = v
				}
			}
			got, err := s.Search(scope, q)
			if err != nil {
				rt.Fatal(err)
			}
			want := bruteForce(m, q.Vector, q.K, live)
			if !slices.Equal(got, want) {
				rt.Fatalf("search = %+v\nwant     %+v", got, want)
			}
			for node, byModel := range hist {
				for i, h := range byModel {
					v, err := s.Get(scope, node, models[i].Name, at)
					if ref := reference(h, at); !slices.Equal(v, ref) || (ref == nil) != isNotFound(err) {
						rt.Fatalf("get %s model %d as of %+v = %v, %v; want %v", node, i, at, v, err, ref)
					}
				}
			}
		})
	})
}

// TestConcurrentPutSearch runs writers and searchers at once (run with
// -race): every search sees a consistent prefix of each writer's vectors.
func TestConcurrentPutSearch(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := New(e)
		mustRegister(t, s, "race", 2, L2)
		scope := storagetest.TenantScope(t)
		const writers, perWriter = 4, 50
		var wg sync.WaitGroup
		errs := make(chan error, writers*2)
		for w := range writers {
			wg.Add(2)
			go func() {
				defer wg.Done()
				for i := range perWriter {
					if err := s.Put(scope, uuid.New(), "race", 1, 10, []float32{float32(w), float32(i)}); err != nil {
						errs <- err
						return
					}
				}
			}()
			go func() {
				defer wg.Done()
				for range perWriter {
					if _, err := s.Search(scope, Query{Model: "race", Vector: []float32{0, 0}, K: 5, At: Latest}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		hits, err := s.Search(scope, Query{Model: "race", Vector: []float32{0, 0}, K: writers * perWriter, At: Latest})
		if err != nil || len(hits) != writers*perWriter {
			t.Fatalf("after writers: %d hits, %v; want %d", len(hits), err, writers*perWriter)
		}
	})
}
