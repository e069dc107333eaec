package storage_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// Counters live in the one family whose system prefix no other layout
// holds: no other layout of spans holds system rows.
func TestCountersHaveTheirFamilysSystemPrefix(t *testing.T) {
	k := storage.SystemScope{}.CounterKey(uuid.New(), storage.CounterTxClock, 0)
	if !k.Valid() {
		t.Fatalf("CounterKey is invalid: %s", k)
	}
	for _, l := range storage.Layouts() {
		if l.Family == k.Family() && l.Scope != storage.TenantRows && l.Shape != "counter" {
			t.Errorf("layout %s %q holds system rows of %s too", l.Family, l.Shape, k.Family())
		}
	}
}

// A counter is absent until advanced; each advance is conditional on what
// was read, so a second advance from the same reading conflicts and
// applies nothing, and an advance that does not move forward poisons its
// batch. Tenants' counters are apart, and a wipe of the tenant (which
// deletes its rows) keeps them.
func TestCounters(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		scopes := storagetest.TenantScopes(t, 2)
		a, b := scopes[0], scopes[1]
		c, err := storage.ReadTxClock(e, a)
		if err != nil || c.Value() != 0 || c.Time() != storage.MinTimestamp {
			t.Fatalf("an unset clock reads %d (%s), %v; want 0, MinTimestamp", c.Value(), c.Time(), err)
		}
		var batch storage.Batch
		batch.AdvanceTxClock(c, 1000)
		batch.Put(storage.TraceKey(a, uuid.UUID{15: 1}), []byte("with the clock"))
		if err := e.Write(&batch); err != nil {
			t.Fatal(err)
		}
		var again storage.Batch
		again.AdvanceTxClock(c, 2000)
		again.Put(storage.TraceKey(a, uuid.UUID{15: 2}), []byte("lost the race"))
		if err := e.Write(&again); !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("a second advance from the same reading = %v, want ErrConflict", err)
		}
		if _, err := e.Get(storage.TraceKey(a, uuid.UUID{15: 2})); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("the conflicting batch's row: %v, want ErrNotFound", err)
		}
		got, err := storage.ReadTxClock(e, a)
		if err != nil || got != c.AdvancedTo(1000) || got.Time() != 1000 {
			t.Fatalf("after the advance the clock reads %s, %v; want 1000 as Advanced says", got.Time(), err)
		}
		var back storage.Batch
		back.AdvanceTxClock(got, 1000)
		if !errors.Is(back.Err(), storage.ErrCounterBackward) {
			t.Errorf("an advance to the same time: %v, want ErrCounterBackward", back.Err())
		}

		for _, read := range []func(storage.Reader, storage.TenantScope) (storage.Counter, error){
			storage.ReadTxClock, storage.ReadGeneration,
			func(r storage.Reader, s storage.TenantScope) (storage.Counter, error) {
				return storage.ReadVectorsSequence(r, s, 7)
			},
		} {
			if c, err := read(e, b); err != nil || c.Value() != 0 {
				t.Errorf("another tenant's counter reads %d, %v; want 0", c.Value(), err)
			}
			if _, err := read(e, storage.TenantScope{}); !errors.Is(err, storage.ErrNilScope) {
				t.Errorf("a counter of the zero scope: %v, want ErrNilScope", err)
			}
		}
		g, err := storage.ReadGeneration(e, a)
		if err != nil || g.Value() != 0 {
			t.Fatalf("generation %d, %v", g.Value(), err)
		}
		var bump storage.Batch
		bump.AdvanceCounter(g, 1)
		if err := e.Write(&bump); err != nil {
			t.Fatal(err)
		}
		if err := storage.WipeTenant(e, a); err != nil {
			t.Fatal(err)
		}
		if c, err := storage.ReadTxClock(e, a); err != nil || c.Time() != 1000 {
			t.Errorf("the clock after a wipe reads %s, %v; want 1000", c.Time(), err)
		}
		if g, err := storage.ReadGeneration(e, a); err != nil || g.Value() < 1 {
			t.Errorf("the generation after a wipe reads %d, %v; want at least 1", g.Value(), err)
		}
	})
}

// A counter row that does not decode is ErrCorrupt, never a number.
func TestCounterValueCorrupt(t *testing.T) {
	for _, v := range [][]byte{nil, {1}, {2, 0, 0, 0, 0, 0, 0, 0, 1}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0}} {
		if n, err := storage.DecodeCounterValue(v); !errors.Is(err, storage.ErrCorrupt) {
			t.Errorf("DecodeCounterValue(%x) = %d, %v; want ErrCorrupt", v, n, err)
		}
	}
	e := storage.NewMemoryEngine()
	s := storagetest.TenantScope(t)
	c, err := storage.ReadTxClock(e, s)
	if err != nil {
		t.Fatal(err)
	}
	var b storage.Batch
	b.AdvanceCounter(c, 5)
	if err := e.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, m := range b.All() {
		if err := e.Put(m.Key, []byte("not a counter")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := storage.ReadTxClock(e, s); !errors.Is(err, storage.ErrCorrupt) {
		t.Errorf("a damaged clock row: %v, want ErrCorrupt", err)
	}
}

// FuzzDecodeCounterValue: any bytes decode to a number or ErrCorrupt,
// never a panic; a number is exactly the last eight bytes of a 9-byte
// version-1 value.
func FuzzDecodeCounterValue(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 9})
	f.Fuzz(func(t *testing.T, v []byte) {
		n, err := storage.DecodeCounterValue(v)
		if err != nil {
			if !errors.Is(err, storage.ErrCorrupt) {
				t.Fatalf("DecodeCounterValue(%x): %v, not ErrCorrupt", v, err)
			}
			return
		}
		if want := binary.BigEndian.AppendUint64([]byte{1}, n); !bytes.Equal(v, want) {
			t.Fatalf("DecodeCounterValue(%x) = %d, which encodes as %x", v, n, want)
		}
	})
}

// ReadTenantCounters reads what the point reads read, in one scan, and
// nothing of another tenant.
func TestReadTenantCounters(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		scopes := storagetest.TenantScopes(t, 2)
		s, other := scopes[0], scopes[1]
		var b storage.Batch
		for _, sc := range scopes {
			clock, _ := storage.ReadTxClock(e, sc)
			seq, _ := storage.ReadVectorsSequence(e, sc, 7)
			b.AdvanceTxClock(clock, 500)
			b.AdvanceCounter(seq, 3)
		}
		if err := e.Write(&b); err != nil {
			t.Fatal(err)
		}
		if err := storage.WipeTenant(e, other); err != nil {
			t.Fatal(err)
		}
		tc, err := storage.ReadTenantCounters(e, s)
		if err != nil {
			t.Fatal(err)
		}
		clock, _ := storage.ReadTxClock(e, s)
		gen, _ := storage.ReadGeneration(e, s)
		seq, _ := storage.ReadVectorsSequence(e, s, 7)
		none, _ := storage.ReadVectorsSequence(e, s, 8)
		if tc.Clock != clock || tc.Generation != gen || tc.Vectors(7) != seq || tc.Vectors(8) != none {
			t.Fatalf("one scan read %+v, the point reads %+v %+v %+v %+v", tc, clock, gen, seq, none)
		}
		if tc.Clock.Time() != 500 || tc.Generation.Value() != 0 || seq.Value() != 3 {
			t.Fatalf("clock %s, generation %d, sequence %d", tc.Clock.Time(), tc.Generation.Value(), seq.Value())
		}
		if _, err := storage.ReadTenantCounters(e, storage.TenantScope{}); !errors.Is(err, storage.ErrNilScope) {
			t.Errorf("counters of the zero scope: %v", err)
		}
	})
}
