package vector

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
	"weak"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// TestConcurrentIndex runs writers (Put, Delete, staged batches), exact
// and approximate searchers and a wiper at once on two tenants with
// disjoint nodes (run with -race). No search ever returns a node of the
// other tenant; once the writers stop, every search of "now" equals the
// store's.
func TestConcurrentIndex(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s := NewWithOptions(e, Options{M: 4, ExactBelow: -1})
		defer s.Close()
		m := mustRegister(t, s, "conc", 4, L2)
		scopes := []storage.TenantScope{storagetest.TenantScope(t), storagetest.TenantScope(t)}
		nodes := make([][]uuid.UUID, len(scopes))
		for i := range scopes {
			for range 40 {
				nodes[i] = append(nodes[i], uuid.New())
			}
		}
		vec := func(i, j int) []float32 { return []float32{float32(i), float32(j % 7), float32(j % 3), 1} }
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		report := func(err error) {
			if err != nil {
				errs <- err
			}
		}
		for ti, scope := range scopes {
			wg.Go(func() { // puts and deletes
				for j := range 300 {
					node := nodes[ti][j%len(nodes[ti])]
					tx := storage.Timestamp(10 + j)
					if j%5 == 4 {
						report(s.Delete(scope, node, "conc", 1, tx))
						continue
					}
					report(s.Put(scope, node, "conc", 1, tx, vec(ti, j)))
				}
			})
			wg.Go(func() { // staged batches
				for j := range 30 {
					var b storage.Batch
					for k := range 5 {
						node := nodes[ti][(j*5+k)%len(nodes[ti])]
						report(s.Stage(&b, scope, m, node, 2, storage.Timestamp(1000+j), vec(ti, j+k)))
					}
					report(s.Write(&b))
				}
			})
			for _, method := range []Method{Exact, Approximate} {
				wg.Go(func() { // searchers
					for j := range 200 {
						hits, err := s.Search(scope, Query{Model: "conc", Vector: vec(ti, j), K: 10, At: Latest, Method: method})
						report(err)
						for _, h := range hits {
							if !slices.Contains(nodes[ti], h.Node) {
								report(fmt.Errorf("tenant %d got node %s of another tenant", ti, h.Node))
							}
						}
					}
				})
			}
		}
		wg.Go(func() { // the wiper of tenant 1
			for range 5 {
				report(storage.WipeTenant(e, scopes[1]))
				time.Sleep(time.Millisecond)
			}
		})
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for _, scope := range scopes {
			q := Query{Model: "conc", Vector: vec(0, 0), K: 100, At: Latest}
			mem, err := s.Search(scope, q)
			if err != nil {
				t.Fatal(err)
			}
			q.Method = FromStore
			store, err := s.Search(scope, q)
			if err != nil || !slices.Equal(mem, store) {
				t.Fatalf("after the writers: memory %v\nstore %v, %v", mem, store, err)
			}
		}
	})
}

// TestMemoryReleased: a wipe drops the tenant's index and its graph, a
// Close drops every index, and the garbage collector then reclaims them
// (the builder goroutines hold no reference once they see it).
func TestMemoryReleased(t *testing.T) {
	e := storage.NewMemoryEngine()
	s := NewWithOptions(e, Options{ExactBelow: -1})
	mustRegister(t, s, "rel", 8, Cosine)
	scopes := []storage.TenantScope{storagetest.TenantScope(t), storagetest.TenantScope(t)}
	var refs []weak.Pointer[matrix]
	for _, scope := range scopes {
		vecs, _ := clusteredVectors(500, 8, 3)
		for _, v := range vecs {
			if err := s.Put(scope, uuid.New(), "rel", 1, 10, v); err != nil {
				t.Fatal(err)
			}
		}
		// An approximate search loads the index and starts its graph.
		if _, err := s.Search(scope, Query{Model: "rel", Vector: vecs[0], K: 3, At: Latest, Method: Approximate}); err != nil {
			t.Fatal(err)
		}
		ix := s.mem.existing(indexKey{scope: scope, model: storage.ModelIDOf("rel")})
		ix.mu.Lock()
		refs = append(refs, weak.Make(ix.mats[8]))
		ix.mu.Unlock()
	}
	collected := func(p weak.Pointer[matrix]) bool {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			runtime.GC()
			if p.Value() == nil {
				return true
			}
		}
		return false
	}

	full := s.MemoryStats()
	if full.Indexes != 2 || full.Vectors != 1000 || full.Bytes < 1000*(8*4+8+16) {
		t.Fatalf("stats of two loaded tenants: %+v", full)
	}
	if err := storage.WipeTenant(e, scopes[0]); err != nil {
		t.Fatal(err)
	}
	if st := s.MemoryStats(); st.Indexes != 1 || st.Vectors != 500 || st.Bytes >= full.Bytes {
		t.Fatalf("stats after a wipe: %+v, before %+v", st, full)
	}
	if s.mem.existing(indexKey{scope: scopes[0], model: storage.ModelIDOf("rel")}) != nil {
		t.Fatal("the wiped tenant's index is still registered")
	}
	if !collected(refs[0]) {
		t.Fatal("the wiped tenant's matrix was not collected")
	}
	if refs[1].Value() == nil {
		t.Fatal("the other tenant's matrix went with the wipe")
	}
	hits, err := s.Search(scopes[0], Query{Model: "rel", Vector: []float32{1, 0, 0, 0, 0, 0, 0, 0}, K: 3, At: Latest})
	if err != nil || len(hits) != 0 {
		t.Fatalf("search of the wiped tenant = %v, %v", hits, err)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st := s.MemoryStats(); st != (MemoryStats{}) {
		t.Fatalf("stats after Close: %+v", st)
	}
	if !collected(refs[1]) {
		t.Fatal("a matrix was not collected after Close")
	}
}

// registered reports whether the shared registry holds a memory for e.
func registered(e storage.Engine) bool {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	return shared.byEngine[e] != nil
}

// TestStoresShareIndexes: Stores over one engine share their indexes, so
// a write through one is found by a search through another; the indexes
// live until the last Store is closed, or dropped and collected.
func TestStoresShareIndexes(t *testing.T) {
	e := storage.NewMemoryEngine()
	a, b := New(e), New(e)
	mustRegister(t, a, "share", 2, L2)
	scope := storagetest.TenantScope(t)
	search := func(s *Store) []Hit {
		t.Helper()
		hits, err := s.Search(scope, Query{Model: "share", Vector: []float32{0, 0}, K: 10, At: Latest})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	if hits := search(b); len(hits) != 0 { // loads the index
		t.Fatalf("empty tenant: %v", hits)
	}
	id := uuid.New()
	if err := a.Put(scope, id, "share", 1, 10, []float32{1, 0}); err != nil {
		t.Fatal(err)
	}
	if hits := search(b); len(hits) != 1 || hits[0].Node != id {
		t.Fatalf("search through b after a put through a: %v", hits)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if !registered(e) || len(search(b)) != 1 {
		t.Fatal("closing a freed the indexes b still uses")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if registered(e) {
		t.Fatal("the indexes outlived the last Store")
	}

	func() { New(e) }() // dropped without Close
	deadline := time.Now().Add(10 * time.Second)
	for registered(e) && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if registered(e) {
		t.Fatal("a Store dropped without Close keeps the indexes registered")
	}
}
