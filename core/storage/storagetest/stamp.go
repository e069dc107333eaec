package storagetest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// testWriteStamp checks an engine that is a storage.WriteStamper: every
// kind of write changes the stamp, reads, snapshots, compactions and a
// refused batch do not, and an engine that is not open gives none. A
// stamp that did not move would let a cache skip the check that finds
// another writer's rows; one that moves without a write only costs a read.
func testWriteStamp(t *testing.T, h Harness) {
	e := open(t, h)
	ws, ok := e.(storage.WriteStamper)
	if !ok {
		t.Logf("%T keeps no write stamp: its callers read the store to see changes", e)
		return
	}
	stamp := func() uint64 {
		t.Helper()
		s, err := ws.WriteStamp()
		must(t, err)
		return s
	}
	must(t, e.Put(nodeKey(1), []byte("one")))
	history := storage.NodeHistory(tenantA.tenant, uuid.UUID{15: 1})
	for _, step := range []struct {
		name   string
		writes bool
		do     func() error
	}{
		{"Put", true, func() error { return e.Put(nodeKey(2), []byte("two")) }},
		{"Put of the same value", true, func() error { return e.Put(nodeKey(2), []byte("two")) }},
		{"Delete", true, func() error { return e.Delete(nodeKey(2)) }},
		{"Delete of an absent key", true, func() error { return e.Delete(nodeKey(9)) }},
		{"Write", true, func() error { return e.Write(batchOf(nodeKey(3))) }},
		{"WriteDurable", true, func() error { return e.WriteDurable(batchOf(nodeKey(4))) }},
		{"conditional Write", true, func() error {
			b := batchOf(nodeKey(5))
			b.RequireAbsent(nodeKey(5))
			return e.Write(b)
		}},
		{"DeleteRange", true, func() error { return e.DeleteRange(storage.NodeHistory(tenantA.tenant, uuid.UUID{15: 3})) }},
		{"Get", false, func() error { _, err := e.Get(nodeKey(1)); return err }},
		{"Scan", false, func() error {
			for _, err := range e.Scan(history) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"Snapshot", false, func() error {
			s, err := e.Snapshot()
			if err != nil {
				return err
			}
			return s.Close()
		}},
		{"refused conditional Write", false, func() error {
			b := batchOf(nodeKey(6))
			b.RequireAbsent(nodeKey(1))
			if err := e.Write(b); !errors.Is(err, storage.ErrConflict) {
				return err
			}
			return nil
		}},
		{"CompactRanges", false, func() error {
			c, ok := e.(storage.Compactor)
			if !ok {
				return nil
			}
			return c.CompactRanges([]storage.ScanRange{history})
		}},
	} {
		before := stamp()
		must(t, step.do())
		if moved := stamp() != before; moved != step.writes {
			t.Errorf("%s: the stamp moved = %t, want %t", step.name, moved, step.writes)
		}
	}
	must(t, e.Close())
	if _, err := ws.WriteStamp(); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("WriteStamp of a closed engine = %v, want ErrClosed", err)
	}
	nilEngine := reflect.Zero(reflect.TypeOf(e)).Interface().(storage.WriteStamper)
	if _, err := nilEngine.WriteStamp(); !errors.Is(err, storage.ErrNotOpen) {
		t.Errorf("WriteStamp of a nil %T = %v, want ErrNotOpen", e, err)
	}
}

func batchOf(k storage.Key) *storage.Batch {
	var b storage.Batch
	b.Put(k, []byte("batched"))
	return &b
}
