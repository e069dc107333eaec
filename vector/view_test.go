package vector

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// TestSearchSeesOneState moves every node of a tenant to new vectors
// over and over (each move kills the node's slot and adds one; enough of
// them to compact the matrix several times) while exact, approximate and
// filtered searches for all the nodes run, and the graph builder with
// them (run with -race). Searches take no lock, so each must see one
// state of the index: every node exactly once, at a distance its vector
// has in some version, never at both its old and its new slot or at
// neither.
func TestSearchSeesOneState(t *testing.T) {
	const nodes, moves = 48, 2500
	s := NewWithOptions(storage.NewMemoryEngine(), Options{M: 4, ExactBelow: -1})
	defer s.Close()
	mustRegister(t, s, "moves", 2, L2)
	scope := storagetest.TenantScope(t)
	ids := make([]uuid.UUID, nodes)
	// Node i's vectors are (i, v) for v in 0…4: its distance from the
	// origin tells which node it is and that the vector is one of them.
	vec := func(i, v int) []float32 { return []float32{float32(i), float32(v % 5)} }
	for i := range ids {
		ids[i] = uuid.New()
		if err := s.Put(scope, ids[i], "moves", 1, 1, vec(i, 0)); err != nil {
			t.Fatal(err)
		}
	}
	index := make(map[uuid.UUID]int, nodes)
	for i, id := range ids {
		index[id] = i
	}
	check := func(hits []Hit) error {
		if len(hits) != nodes {
			return fmt.Errorf("%d hits, want every one of the %d nodes", len(hits), nodes)
		}
		seen := make(map[uuid.UUID]bool, nodes)
		for _, h := range hits {
			i, ok := index[h.Node]
			if !ok || seen[h.Node] {
				return fmt.Errorf("hit %s: a node of the tenant %t, seen before %t", h.Node, ok, seen[h.Node])
			}
			seen[h.Node] = true
			if !slices.ContainsFunc([]int{0, 1, 2, 3, 4}, func(v int) bool {
				return h.Distance == distance(L2, []float32{0, 0}, vec(i, v), 0)
			}) {
				return fmt.Errorf("node %d at distance %v, which none of its vectors has", i, h.Distance)
			}
		}
		return nil
	}
	filter := &Filter{IDs: ids}
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	wg.Go(func() {
		defer done.Store(true)
		for j := range moves {
			i := j % nodes
			if err := s.Put(scope, ids[i], "moves", 1, storage.Timestamp(2+j), vec(i, j/nodes+1)); err != nil {
				errs <- err
				return
			}
		}
	})
	for _, q := range []Query{
		{Method: Exact},
		{Method: Approximate},
		{Method: Approximate, Filter: filter},
		{Method: Exact, Filter: filter},
	} {
		q.Model, q.Vector, q.K, q.At = "moves", []float32{0, 0}, nodes, Latest
		wg.Go(func() {
			var hits []Hit
			for !done.Load() {
				var err error
				hits, err = s.AppendSearch(hits[:0], scope, q)
				if err == nil {
					err = check(hits)
				}
				if err != nil {
					errs <- fmt.Errorf("%+v: %w", q.Method, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := s.MemoryStats(); st.Vectors != nodes {
		t.Errorf("MemoryStats holds %d vectors, want %d", st.Vectors, nodes)
	}
}
