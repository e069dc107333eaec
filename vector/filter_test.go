package vector

import (
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// TestSharedFilterDuringWrites: one Filter serves concurrent approximate
// and exact searches while a writer puts and deletes nodes of it (run
// with -race). Every hit is a node of the filter; a node deleted before a
// search began never comes back; once the writer stops, a search with the
// reused Filter equals one with a fresh Filter of the same ids, which
// translates them anew.
func TestSharedFilterDuringWrites(t *testing.T) {
	e := storage.NewMemoryEngine()
	s := NewWithOptions(e, Options{M: 4, ExactBelow: -1})
	defer s.Close()
	mustRegister(t, s, "sf", 4, L2)
	scope := storagetest.TenantScope(t)
	var ids []uuid.UUID
	vec := func(j int) []float32 { return []float32{float32(j % 11), float32(j % 7), float32(j % 3), 1} }
	for j := range 200 {
		id := uuid.New()
		ids = append(ids, id)
		if err := s.Put(scope, id, "sf", 1, 10, vec(j)); err != nil {
			t.Fatal(err)
		}
	}
	filter := &Filter{IDs: slices.Clone(ids[:100])}
	var (
		mu      sync.Mutex
		deleted = map[uuid.UUID]bool{}
		wg      sync.WaitGroup
	)
	errs := make(chan error, 16)
	wg.Go(func() {
		for j := range 150 {
			id := ids[j%100]
			if j%3 == 2 {
				if err := s.Delete(scope, id, "sf", 1, storage.Timestamp(20+j)); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				deleted[id] = true
				mu.Unlock()
				continue
			}
			mu.Lock()
			gone := deleted[id]
			mu.Unlock()
			if gone {
				continue // a deleted node stays deleted in this test
			}
			if err := s.Put(scope, id, "sf", 1, storage.Timestamp(20+j), vec(j+5)); err != nil {
				errs <- err
				return
			}
		}
	})
	for _, method := range []Method{Approximate, Exact} {
		wg.Go(func() {
			for j := range 100 {
				mu.Lock()
				gone := make(map[uuid.UUID]bool, len(deleted))
				for id := range deleted {
					gone[id] = true
				}
				mu.Unlock()
				hits, err := s.Search(scope, Query{Model: "sf", Vector: vec(j), K: 10, At: Latest, Filter: filter, Method: method})
				if err != nil {
					errs <- err
					return
				}
				for _, h := range hits {
					if !slices.Contains(filter.IDs, h.Node) || gone[h.Node] {
						t.Errorf("%s search: hit %v is outside the filter or deleted", methodName(method), h)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for j := range 20 {
		q := Query{Model: "sf", Vector: vec(j), K: 10, At: Latest, Filter: filter, Method: Approximate}
		reused, err := s.Search(scope, q)
		if err != nil {
			t.Fatal(err)
		}
		q.Filter = &Filter{IDs: filter.IDs}
		fresh, err := s.Search(scope, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(reused, fresh) {
			t.Fatalf("query %d: the reused filter found %v, a fresh one %v", j, reused, fresh)
		}
	}
}
