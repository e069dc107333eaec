package vector

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// TestAwaitOwn: a view behind only by values that writes of this process
// claimed (or holds out of order) waits for those writes; a value no
// write of this process claimed is another process's, and is reported at
// once.
func TestAwaitOwn(t *testing.T) {
	key := indexKey{model: storage.ModelIDOf("m")}
	for _, tc := range []struct {
		name    string
		claimed []uint64
		ahead   map[uint64]bool
		hi      uint64
		own     bool
	}{
		{"all claimed", []uint64{3, 4}, nil, 5, true},
		{"one held out of order", []uint64{3}, map[uint64]bool{5: true}, 5, true},
		{"another process's", []uint64{3}, nil, 5, false},
		{"nothing missing", nil, nil, 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := &memory{}
			keys := make([]indexKey, len(tc.claimed))
			for i := range keys {
				keys[i] = key
			}
			claims := mem.claim(keys, tc.claimed)
			released := make(chan time.Time, 1)
			go func() {
				time.Sleep(20 * time.Millisecond)
				at := time.Now()
				mem.release(claims)
				released <- at
			}()
			own := mem.awaitOwn(key, &view{seq: 3, ahead: tc.ahead}, tc.hi)
			returned := time.Now()
			if own != tc.own {
				t.Fatalf("awaitOwn = %t, want %t", own, tc.own)
			}
			at := <-released
			if waited := !returned.Before(at); waited != (tc.own && len(tc.claimed) > 0) {
				t.Errorf("waited for the claims: %t", waited)
			}
			if len(mem.claims) != 0 {
				t.Errorf("claims left after release: %v", mem.claims)
			}
		})
	}
}

// TestOwnWritesKeepTheIndex: searches that run beside this process's own
// writes to their index keep it (they wait for a write they see in the
// counters to be applied, instead of dropping the index as if another
// process had written), and see every write once it has returned.
func TestOwnWritesKeepTheIndex(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := NewWithOptions(env.Engine, Options{M: 4, ExactBelow: -1})
		defer s.Close()
		m := mustRegister(t, s, "own", 2, L2)
		scope := storagetest.TenantScope(t)
		q := Query{Model: "own", Vector: []float32{0, 0}, K: 1000, At: Latest, Method: Approximate}
		if err := s.Put(scope, uuid.New(), "own", 1, 1, []float32{1, 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Search(scope, q); err != nil {
			t.Fatal(err)
		}
		key := indexKey{scope: scope, model: m.ID}
		ix := s.mem.existing(key)
		var wg sync.WaitGroup
		var written []uuid.UUID
		wg.Go(func() {
			for i := range 150 {
				node := uuid.New()
				if err := s.Put(scope, node, "own", 1, storage.Timestamp(2+i), []float32{float32(i), 1}); err != nil {
					t.Error(err)
					return
				}
				written = append(written, node)
			}
		})
		for range 2 {
			wg.Go(func() {
				for range 150 {
					if _, err := s.Search(scope, q); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		if got := s.mem.existing(key); got != ix {
			t.Errorf("the index was dropped and loaded again beside its own writes")
		}
		hits, err := s.Search(scope, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, node := range written {
			if !slices.ContainsFunc(hits, func(h Hit) bool { return h.Node == node }) {
				t.Fatalf("written node %s missing after its Put returned", node)
			}
		}
	})
}

// TestKnownSequenceGoesForward: a value read or written beside later
// writes of this process does not take the known sequence back, unless
// the write read the engine for it (after a wipe, the sequence is lower).
func TestKnownSequenceGoesForward(t *testing.T) {
	mem := &memory{}
	key := indexKey{model: storage.ModelIDOf("m")}
	var c storage.Counter
	for _, step := range []struct {
		value   uint64
		forward bool
		want    uint64
	}{
		{5, true, 5},
		{3, true, 5},
		{7, true, 7},
		{2, false, 2},
	} {
		mem.knowSequence(key, c.Advanced(step.value), step.forward)
		if got, _ := mem.knownSequence(key); got.Value() != step.want {
			t.Fatalf("after %d (forward %t): known %d, want %d", step.value, step.forward, got.Value(), step.want)
		}
	}
}
