package storage_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

func mustScope(t testing.TB, tenant, org string) storage.TenantScope {
	t.Helper()
	s, err := storage.NewTenantScope(uuid.MustParse(tenant), uuid.MustParse(org))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rowsOf returns one key of every family in scope s, with the lowest and the
// highest component values, so that a wipe that overshoots its scope by one
// byte would reach a neighbour's rows.
func rowsOf(s storage.TenantScope) []storage.Key {
	var keys []storage.Key
	for _, id := range []uuid.UUID{uuid.Nil, uuid.Max} {
		for _, t := range []storage.Timestamp{storage.MinTimestamp, storage.MaxTimestamp - 1} {
			keys = append(keys,
				storage.NodeVersionKey(s, id, t, t),
				storage.EdgeVersionKey(s, id, t, t),
				storage.AdjacencyOutKey(s, id, 1, t, t, id),
				storage.AdjacencyInKey(s, id, 1, t, t, id),
				storage.ValidTimeIndexKey(s, t, t, id, storage.IndexNode),
				storage.TxTimeIndexKey(s, t, t, id, storage.IndexEdge),
				storage.VectorKey(s, id, 7, t, t),
				storage.SchemaKey(s, 9, t),
				storage.SourceChunkKey(s, id, 3),
				storage.FactSpanKey(s, id, id, 0, 10),
				storage.SpanKey(s, id, 0, 10),
				storage.TraceKey(s, id),
				storage.JobKey(s, storage.JobQueued, 0, t, id),
				storage.BitmapAllocKey(s, 3),
			)
		}
	}
	return keys
}

// dump returns every row of the store, family by family, in order.
func dump(t *testing.T, e storage.Engine) []storage.KV {
	t.Helper()
	var out []storage.KV
	for _, cf := range storage.Families() {
		for kv, err := range e.Scan(storage.SystemScope{}.FullFamily(cf)) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, kv)
		}
	}
	return out
}

// TestWipeTenant wipes a tenant whose scope is byte-adjacent to its
// neighbours, in every family, and checks that the tenant has no row left
// and that every other row of the store, system rows included, is
// byte-identical, but for the tenant's generation, which each wipe
// advances.
func TestWipeTenant(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		below := mustScope(t, "7fffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-fffffffffffe")
		victim := mustScope(t, "7fffffff-ffff-ffff-ffff-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff")
		above := mustScope(t, "80000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001")
		var b storage.Batch
		for _, s := range []storage.TenantScope{below, victim, above} {
			for _, k := range rowsOf(s) {
				b.Put(k, k.Bytes())
			}
		}
		b.Put(storage.SystemScope{}.JobKey(storage.JobQueued, 0, 1, uuid.Max), []byte("system job"))
		b.Put(storage.SystemScope{}.VectorModelKey(1, 1), []byte("system model"))
		if err := e.Write(&b); err != nil {
			t.Fatal(err)
		}
		before := dump(t, e)
		if err := storage.WipeTenant(e, victim); err != nil {
			t.Fatal(err)
		}
		for _, cf := range storage.Families() {
			for kv, err := range e.Scan(storage.TenantAll(victim, cf)) {
				t.Fatalf("%s: row %x survived the wipe (%v)", cf, kv.Key, err)
			}
		}
		want := slices.DeleteFunc(before, func(kv storage.KV) bool { return bytes.HasPrefix(kv.Key, prefixOf(victim)) })
		got := dump(t, e)
		got = slices.DeleteFunc(got, func(kv storage.KV) bool {
			return !slices.ContainsFunc(before, func(b storage.KV) bool { return bytes.Equal(b.Key, kv.Key) })
		})
		if !slices.EqualFunc(got, want, func(a, b storage.KV) bool {
			return bytes.Equal(a.Key, b.Key) && bytes.Equal(a.Value, b.Value)
		}) {
			t.Fatalf("the wipe changed other scopes: %d rows, want %d", len(got), len(want))
		}
		if n := len(dump(t, e)) - len(got); n != 1 {
			t.Fatalf("the wipe added %d rows, want the tenant's generation", n)
		}
		// Wiping again, or an empty tenant, is not an error.
		if err := storage.WipeTenant(e, victim); err != nil {
			t.Fatalf("second wipe: %v", err)
		}
		if g, err := storage.ReadGeneration(e, victim); err != nil || g.Value() != 2 {
			t.Fatalf("after two wipes the generation is %d, %v; want 2", g.Value(), err)
		}
	})
}

// prefixOf returns the 32 scope bytes every key of s starts with.
func prefixOf(s storage.TenantScope) []byte {
	return storage.TraceKey(s, uuid.Nil).Bytes()[:storage.ScopeLen]
}

// cache is a stand-in for a subsystem cache keyed by scope.
type cache struct {
	wiped []storage.TenantScope
}

func (c *cache) forget(s storage.TenantScope) { c.wiped = append(c.wiped, s) }

func TestWipeNotifiesListeners(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		s1 := mustScope(t, "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000001")
		s2 := mustScope(t, "00000000-0000-0000-0000-000000000002", "00000000-0000-0000-0000-000000000001")
		other := storage.NewMemoryEngine()
		var onEngine, onOther, cancelled cache
		storage.OnWipe(e, &onEngine, (*cache).forget)
		storage.OnWipe(other, &onOther, (*cache).forget)
		cancel := storage.OnWipe(e, &cancelled, (*cache).forget)
		if err := storage.WipeTenant(e, s1); err != nil {
			t.Fatal(err)
		}
		cancel()
		cancel() // twice is fine
		if err := storage.WipeTenant(e, s2); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(onEngine.wiped, []storage.TenantScope{s1, s2}) {
			t.Errorf("listener heard %v, want [%s %s]", onEngine.wiped, s1, s2)
		}
		if !slices.Equal(cancelled.wiped, []storage.TenantScope{s1}) {
			t.Errorf("cancelled listener heard %v, want only %s", cancelled.wiped, s1)
		}
		if len(onOther.wiped) != 0 {
			t.Errorf("a listener of another engine heard %v", onOther.wiped)
		}
	})
}

// failingEngine fails durable writes that delete a range of one family,
// and records the calls it sees, in order.
type failingEngine struct {
	*storage.MemoryEngine
	failOn storage.ColumnFamily
	calls  []string
}

var errDisk = errors.New("disk on fire")

func (f *failingEngine) DeleteRange(r storage.ScanRange) error {
	f.calls = append(f.calls, "delete "+r.Family().String())
	return f.MemoryEngine.DeleteRange(r)
}

func (f *failingEngine) WriteDurable(b *storage.Batch) error {
	var families []string
	for _, m := range b.All() {
		if m.Kind != storage.MutationDeleteRange {
			continue
		}
		if m.Range.Family() == f.failOn {
			return errDisk
		}
		families = append(families, m.Range.Family().String())
	}
	f.calls = append(f.calls, fmt.Sprintf("durable write of %d, deleting %s", b.Len(), strings.Join(families, " ")))
	return f.MemoryEngine.WriteDurable(b)
}

// TestWipeIsDurableAndAlwaysNotifies checks a wipe's step: one durable
// batch deleting every family and advancing the generation; and that a failed write still drops the
// caches and reports the failure.
func TestWipeIsDurableAndAlwaysNotifies(t *testing.T) {
	s := mustScope(t, "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000001")
	ok := &failingEngine{MemoryEngine: storage.NewMemoryEngine()}
	if err := storage.WipeTenant(ok, s); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, cf := range storage.Families() {
		names = append(names, cf.String())
	}
	want := []string{fmt.Sprintf("durable write of %d, deleting %s", len(names)+1, strings.Join(names, " "))} // and the generation
	if !slices.Equal(ok.calls, want) {
		t.Errorf("wipe steps %q, want %q", ok.calls, want)
	}

	bad := &failingEngine{MemoryEngine: storage.NewMemoryEngine(), failOn: storage.Vectors}
	var c cache
	storage.OnWipe(bad, &c, (*cache).forget)
	if err := storage.WipeTenant(bad, s); !errors.Is(err, errDisk) {
		t.Fatalf("wipe with a failing write: %v", err)
	}
	if !slices.Equal(c.wiped, []storage.TenantScope{s}) {
		t.Fatalf("a failed wipe did not drop the caches: %v", c.wiped)
	}
}

// valueEngine is an engine whose dynamic type is not comparable.
type valueEngine struct {
	storage.Engine
	tags []string
}

func TestWipeRefusesBadInput(t *testing.T) {
	s := mustScope(t, "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000001")
	e := storage.NewMemoryEngine()
	var zero storage.TenantScope
	if err := storage.WipeTenant(e, zero); !errors.Is(err, storage.ErrNilScope) {
		t.Errorf("wipe of the zero scope: %v", err)
	}
	if err := storage.WipeTenant(nil, s); !errors.Is(err, storage.ErrWipeUnsupported) {
		t.Errorf("wipe of a nil engine: %v", err)
	}
	unhashable := valueEngine{Engine: e, tags: []string{"x"}}
	if err := storage.WipeTenant(unhashable, s); !errors.Is(err, storage.ErrWipeUnsupported) {
		t.Errorf("wipe of a non-comparable engine: %v", err)
	}
	// Registration with bad input registers nothing and does not panic.
	var c cache
	storage.OnWipe(nil, &c, (*cache).forget)()
	storage.OnWipe(unhashable, &c, (*cache).forget)()
	storage.OnWipe[cache](e, nil, (*cache).forget)()
	storage.OnWipe(e, &c, nil)()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := storage.WipeTenant(e, s); !errors.Is(err, storage.ErrClosed) {
		t.Errorf("wipe of a closed engine: %v", err)
	}
}
