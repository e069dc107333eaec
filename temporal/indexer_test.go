package temporal

import (
	"errors"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// recorder is an Indexer that records its calls and writes one
// bitmap_index row per live label, in the node's batch.
type recorder struct {
	calls [][2]string // before and after names, "" for nil
	fail  error
}

func (r *recorder) IndexNode(b *storage.Batch, scope storage.TenantScope, before, after *Version) error {
	if r.fail != nil {
		return r.fail
	}
	str := func(v *Version) string {
		if v == nil {
			return ""
		}
		return v.Props["name"].Str
	}
	r.calls = append(r.calls, [2]string{str(before), str(after)})
	if before != nil {
		for _, l := range before.Labels {
			b.Delete(storage.BitmapRevMapKey(scope, storage.HashLabel(l), before.ID))
		}
	}
	if after != nil {
		for _, l := range after.Labels {
			b.Put(storage.BitmapRevMapKey(scope, storage.HashLabel(l), after.ID), []byte{1})
		}
	}
	return nil
}

func TestIndexerSeesNodeWritesInTheSameBatch(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		rec := &recorder{}
		s := openStore(env, Options{Indexers: []Indexer{rec}})
		scope := storagetest.TenantScope(t)
		has := func(label string) bool {
			_, err := env.Engine.Get(storage.BitmapRevMapKey(scope, storage.HashLabel(label), idA))
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				t.Fatal(err)
			}
			return err == nil
		}
		assertNode(t, s, scope, idA, always(), name("v1"), "Person")
		assertNode(t, s, scope, idA, always(), name("v2"), "Employee")
		assertNode(t, s, scope, idA, Interval{0, 10}, name("past")) // does not touch the present
		if !has("Employee") || has("Person") {
			t.Fatalf("index rows: Employee %t, Person %t", has("Employee"), has("Person"))
		}
		if _, err := s.DeleteNode(scope, idA, 20); err != nil {
			t.Fatal(err)
		}
		if has("Employee") {
			t.Fatal("index row survives the delete")
		}
		want := [][2]string{{"", "v1"}, {"v1", "v2"}, {"v2", "v2"}, {"v2", ""}}
		if len(rec.calls) != len(want) {
			t.Fatalf("calls %v, want %v", rec.calls, want)
		}
		for i := range want {
			if rec.calls[i] != want[i] {
				t.Errorf("call %d: %v, want %v", i, rec.calls[i], want[i])
			}
		}
		// A failing indexer aborts the whole write.
		rec.fail = errors.New("index full")
		if _, err := s.AssertNode(scope, NodeFact{ID: idB, Valid: always()}); !errors.Is(err, rec.fail) {
			t.Fatalf("assert with failing indexer: %v", err)
		}
		if _, err := s.NodeHistory(scope, idB); !errors.Is(err, ErrNotFound) {
			t.Fatalf("node written despite the failing indexer: %v", err)
		}
	})
}
