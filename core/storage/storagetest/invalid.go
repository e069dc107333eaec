package storagetest

import (
	"errors"
	"path/filepath"
	"testing"

	"telha.dev/core/storage"
)

// testInvalidArguments hands every operation the zero Key, every key
// constructor's output for the zero TenantScope, the zero ScanRange and
// every range constructor's output for the zero TenantScope, on the engine
// and on a snapshot: each must be refused with ErrInvalidKey or
// ErrInvalidRange, and nothing may change.
func testInvalidArguments(t *testing.T, h Harness) {
	e := open(t, h)
	fx := newFixture(t, []scope{systemScope, tenantA}, &edgeValues)
	fx.load(t, e)
	snap, err := e.Snapshot()
	must(t, err)
	defer func() { must(t, snap.Close()) }()

	keys := []storage.Key{{}}
	zero := scope{name: "zero"}
	generate(zero, &edgeValues, func(k storage.Key, _ string, _ fields) {
		if k.Valid() {
			t.Errorf("a key constructor built a valid key from the zero TenantScope: %s", k)
		}
		keys = append(keys, k)
	})
	for _, k := range keys {
		for _, r := range []storage.Reader{e, snap} {
			if v, err := r.Get(k); !errors.Is(err, storage.ErrInvalidKey) {
				t.Errorf("Get of an invalid %s key = %q, %v; want ErrInvalidKey", k.Family(), v, err)
			}
		}
		for name, err := range map[string]error{
			"Put":    e.Put(k, []byte("x")),
			"Delete": e.Delete(k),
		} {
			if !errors.Is(err, storage.ErrInvalidKey) {
				t.Errorf("%s of an invalid %s key = %v, want ErrInvalidKey", name, k.Family(), err)
			}
		}
	}

	ranges := []storage.ScanRange{{}}
	for _, c := range constructors {
		if c.system {
			continue
		}
		for _, p := range c.params(fx, &edgeValues) {
			r, err := c.build(storage.TenantScope{}, p)
			switch {
			case err != nil:
				continue // refused by the constructor
			case r.Valid():
				t.Errorf("%s built a valid range from the zero TenantScope: %s", c.describe(zero, p), r)
			}
			ranges = append(ranges, r)
		}
	}
	for _, r := range ranges {
		for _, rd := range []storage.Reader{e, snap} {
			if rows, err := scanAll(rd, r); len(rows) != 0 || !errors.Is(err, storage.ErrInvalidRange) {
				t.Errorf("Scan of an invalid %s range = %d rows, %v; want only ErrInvalidRange", r.Family(), len(rows), err)
			}
		}
		if err := e.DeleteRange(r); !errors.Is(err, storage.ErrInvalidRange) {
			t.Errorf("DeleteRange of an invalid %s range = %v, want ErrInvalidRange", r.Family(), err)
		}
	}
	checkTables(t, "after invalid arguments", e, fx.model().tables())
	t.Logf("%d invalid keys, %d invalid ranges", len(keys), len(ranges))
}

// testClosed checks that every operation on a closed engine, Close
// included, reports ErrClosed.
func testClosed(t *testing.T, h Harness) {
	e := open(t, h)
	k := nodeKey(1)
	must(t, e.Put(k, []byte("x")))
	must(t, e.Close())
	var b storage.Batch
	b.Put(k, []byte("y"))
	for _, op := range []struct {
		name string
		call func() error
	}{
		{"Put", func() error { return e.Put(k, []byte("y")) }},
		{"Delete", func() error { return e.Delete(k) }},
		{"Write", func() error { return e.Write(&b) }},
		{"WriteDurable", func() error { return e.WriteDurable(&b) }},
		{"DeleteRange", func() error { return e.DeleteRange(storage.TenantAll(tenantA.tenant, storage.NodeVersions)) }},
		{"Snapshot", func() error { _, err := e.Snapshot(); return err }},
		{"Checkpoint", func() error { return e.Checkpoint(filepath.Join(t.TempDir(), "checkpoint")) }},
		{"Close", e.Close},
	} {
		if err := op.call(); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", op.name, err)
		}
	}
	checkClosedReader(t, "closed engine", e)
}
