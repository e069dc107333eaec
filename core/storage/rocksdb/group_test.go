package rocksdb

import (
	"errors"
	"reflect"
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
