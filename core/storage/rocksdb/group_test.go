package rocksdb

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// TestGroupLeavesOutBadBatch writes a group whose middle batch was changed
// after it was built: that batch fails alone, none of its mutations lands
// (not even those before the bad one), and the others land with one sync.
func TestGroupLeavesOutBadBatch(t *testing.T) {
	e := newTestEngine(t)
	s := newScope(t)
	good1, bad, good2 := new(storage.Batch), new(storage.Batch), new(storage.Batch)
	good1.Put(nodeKey(s, uuid.New(), 1), []byte("good1"))
	badFirst := nodeKey(s, uuid.New(), 1)
	bad.Put(badFirst, []byte("lands only if the rollback fails"))
	bad.Put(nodeKey(s, uuid.New(), 2), []byte("forged"))
	// As a racing goroutine or unsafe could: Batch's own checks passed.
	f := reflect.ValueOf(bad).Elem().FieldByName("mutations")
	(*reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Interface().(*[]storage.Mutation))[1].Key = storage.Key{}
	good2.Put(nodeKey(s, uuid.New(), 1), []byte("good2"))
	group := []*durableWrite{{batch: good1}, {batch: bad}, {batch: good2}}

	syncs := walSyncs(t, e)
	if err := e.enter(nil); err != nil {
		t.Fatal(err)
	}
	e.writeGroup(group)
	e.mu.RUnlock()
	if n := walSyncs(t, e) - syncs; n != 1 {
		t.Errorf("the group synced the log %d times, want 1", n)
	}
	if group[0].err != nil || group[2].err != nil {
		t.Fatalf("good batches: %v, %v", group[0].err, group[2].err)
	}
	if !errors.Is(group[1].err, storage.ErrInvalidKey) {
		t.Fatalf("bad batch: %v, want ErrInvalidKey", group[1].err)
	}
	if _, err := e.Get(badFirst); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the bad batch's first mutation: %v, want ErrNotFound", err)
	}
	for _, b := range []*storage.Batch{good1, good2} {
		for _, m := range b.All() {
			if v, err := e.Get(m.Key); err != nil || string(v) != string(m.Value) {
				t.Fatalf("good batch row = %q, %v", v, err)
			}
		}
	}
}

// TestWriteDurableUnderClose writes durably from many goroutines while the
// engine closes: every call returns nil or storage.ErrClosed, none hangs,
// and every acknowledged batch is in the store when it reopens.
func TestWriteDurableUnderClose(t *testing.T) {
	cfg := testConfig(t)
	e, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := newScope(t)
	const writers = 8
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		acked   []storage.Key
		started = make(chan struct{}, writers)
	)
	for w := range writers {
		wg.Go(func() {
			id := uuid.New()
			for v := 0; ; v++ {
				var b storage.Batch
				k := nodeKey(s, id, v)
				b.Put(k, fmt.Appendf(nil, "%d %d", w, v))
				err := e.WriteDurable(&b)
				if v == 2 {
					started <- struct{}{}
				}
				switch {
				case errors.Is(err, storage.ErrClosed):
					return
				case err != nil:
					t.Error(err)
					return
				}
				mu.Lock()
				acked = append(acked, k)
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
	e = openTest(t, cfg)
	for _, k := range acked {
		if _, err := e.Get(k); err != nil {
			t.Fatalf("acknowledged %s: %v", k, err)
		}
	}
	t.Logf("%d batches acknowledged before Close", len(acked))
}
