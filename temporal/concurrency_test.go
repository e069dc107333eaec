package temporal

import (
	"sync"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// TestConcurrentCorrections: writers correct one node concurrently while
// readers read it. Every write gets its own transaction time, and the
// versions known at the end still partition valid time without overlap.
func TestConcurrentCorrections(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		s := Open(env.Engine, Options{}) // the real wall clock
		scope := storagetest.TenantScope(t)
		assertNode(t, s, scope, idA, always(), name("seed"))
		const writers, writes = 4, 25
		var wg sync.WaitGroup
		txs := make(chan storage.Timestamp, writers*writes)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range writes {
					start := storage.Timestamp((w*writes + i) % 40)
					tx, err := s.AssertNode(scope, NodeFact{ID: idA, Valid: Interval{start, start + 7}, Props: name("w")})
					if err != nil {
						t.Error(err)
						return
					}
					txs <- tx
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range writers * writes {
				if _, err := s.NodeAsOf(scope, idA, Current(20)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		wg.Wait()
		close(txs)
		seen := map[storage.Timestamp]bool{}
		for tx := range txs {
			if seen[tx] {
				t.Fatalf("transaction time %d handed out twice", tx)
			}
			seen[tx] = true
		}
		hist, err := s.NodeHistory(scope, idA)
		if err != nil {
			t.Fatal(err)
		}
		var known []Interval
		for _, v := range hist {
			if v.TxEnd != Forever {
				continue
			}
			for _, k := range known {
				if k.overlaps(v.Valid) {
					t.Fatalf("known versions overlap: %+v and %+v", k, v.Valid)
				}
			}
			known = append(known, v.Valid)
		}
	})
}
