package storagetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// WritesRacingClose writes durably from eight goroutines, a new row per
// call, while e closes, then opens the store again with reopen: every call
// returns nil or storage.ErrClosed, and the store holds exactly the rows
// whose writes returned nil. A write that reports ErrClosed must not have
// been applied; one that returned nil must survive.
func WritesRacingClose(t *testing.T, e storage.Engine, reopen func() storage.Engine) {
	t.Helper()
	s := TenantScope(t)
	const writers = 8
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		acked   = map[string]bool{}
		started = make(chan struct{}, writers)
	)
	for w := range writers {
		wg.Go(func() {
			id := uuid.New()
			for v := 0; ; v++ {
				var b storage.Batch
				k := storage.NodeVersionKey(s, id, storage.Timestamp(v), storage.Timestamp(v))
				b.Put(k, fmt.Appendf(nil, "%d %d", w, v))
				err := e.WriteDurable(&b)
				if v == 2 {
					started <- struct{}{}
				}
				if err != nil {
					if !errors.Is(err, storage.ErrClosed) {
						t.Errorf("a write racing Close: %v, want nil or ErrClosed", err)
					}
					return
				}
				mu.Lock()
				acked[string(k.Bytes())] = true
				mu.Unlock()
			}
		})
	}
	for range writers {
		<-started
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	stored, err := scanAll(reopen(), storage.TenantAll(s, storage.NodeVersions))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range stored {
		if !acked[string(kv.Key)] {
			t.Errorf("%x is stored, but its write reported ErrClosed", kv.Key)
		}
	}
	if len(stored) != len(acked) {
		t.Errorf("%d rows stored, %d writes acknowledged", len(stored), len(acked))
	}
	t.Logf("%d writes acknowledged before Close", len(acked))
}
