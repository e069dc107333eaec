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

// TestGroupConditionalBatches writes one group of conditional and plain
// batches: the conditional ones are checked against the store and written
// first, with one sync for all; one whose condition fails applies nothing
// (ErrConflict); one whose condition names a key that an earlier
// conditional batch of the group writes waits for the next group
// (returned, its error untouched), where it is checked against the store
// that holds the earlier one.
func TestGroupConditionalBatches(t *testing.T) {
	e := newTestEngine(t)
	s := newScope(t)
	counter, other, plain := nodeKey(s, uuid.New(), 1), nodeKey(s, uuid.New(), 1), nodeKey(s, uuid.New(), 1)
	if err := e.Put(counter, []byte("0")); err != nil {
		t.Fatal(err)
	}
	swap := func(from, to string) *storage.Batch {
		var b storage.Batch
		b.RequireValue(counter, []byte(from))
		b.Put(counter, []byte(to))
		return &b
	}
	var create, plainBatch storage.Batch
	create.RequireAbsent(other)
	create.Put(other, []byte("created"))
	plainBatch.Put(plain, []byte("plain"))
	group := []*durableWrite{
		{batch: &plainBatch},
		{batch: swap("0", "1")},
		{batch: swap("0", "lost")}, // names the counter the first swap writes: waits
		{batch: &create},
		{batch: swap("9", "never")}, // waits too, though it would fail
	}
	sentinel := errors.New("untouched")
	for _, w := range group {
		w.err = sentinel
	}
	syncs := walSyncs(t, e)
	if err := e.enter(nil); err != nil {
		t.Fatal(err)
	}
	later := e.writeGroup(group)
	e.mu.RUnlock()
	if n := walSyncs(t, e) - syncs; n != 1 {
		t.Errorf("the group synced the log %d times, want 1", n)
	}
	if len(later) != 2 || later[0] != group[2] || later[1] != group[4] {
		t.Fatalf("later = %v, want the two swaps that name the counter after the first", later)
	}
	for _, i := range []int{0, 1, 3} {
		if group[i].err != nil {
			t.Errorf("batch %d: %v", i, group[i].err)
		}
	}
	for _, i := range []int{2, 4} {
		if group[i].err != sentinel {
			t.Errorf("batch %d, which waits: error %v", i, group[i].err)
		}
	}
	for k, want := range map[storage.Key]string{counter: "1", other: "created", plain: "plain"} {
		if v, err := e.Get(k); err != nil || string(v) != want {
			t.Errorf("after the group %s = %q, %v; want %q", k, v, err, want)
		}
	}

	// The next group: the waiting swap from 0 now conflicts.
	if err := e.enter(nil); err != nil {
		t.Fatal(err)
	}
	later = e.writeGroup(later)
	e.mu.RUnlock()
	if len(later) != 0 || !errors.Is(group[2].err, storage.ErrConflict) || !errors.Is(group[4].err, storage.ErrConflict) {
		t.Fatalf("the next group: later %v, errors %v, %v; want none and two ErrConflict", later, group[2].err, group[4].err)
	}
	if v, err := e.Get(counter); err != nil || string(v) != "1" {
		t.Errorf("counter = %q, %v; want 1", v, err)
	}
}
