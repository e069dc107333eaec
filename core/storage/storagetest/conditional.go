package storagetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// holds reports whether every condition of b holds in the model, as an
// engine decides before it applies b.
func (m model) holds(b *storage.Batch) bool {
	for _, c := range b.Conditions() {
		v, ok := m[c.Key]
		if !c.Holds(v, ok) {
			return false
		}
	}
	return true
}

// testConditionalBatches checks the rules of a batch with conditions, by
// both writes: it is applied whole when every condition holds, as the
// store was before it; otherwise it is refused with ErrConflict and
// nothing of it is applied, its range deletions included. An empty value
// is a value, which an absent key does not hold; a condition may name a
// key the batch writes, in any family and scope, the system scope too.
func testConditionalBatches(t *testing.T, h Harness) {
	e := open(t, h)
	m := model{}
	empty := storage.TraceKey(tenantB.tenant, uuid.UUID{15: 9})
	system := storage.SystemScope{}.TenantRecordKey(uuid.UUID{15: 9})
	var seed storage.Batch
	seed.Put(nodeKey(1), []byte("one"))
	seed.Put(nodeKey(2), []byte("two"))
	seed.Put(empty, nil)
	seed.Put(system, []byte("system"))
	m.apply(&seed)
	must(t, e.Write(&seed))

	type require func(*storage.Batch)
	absent := func(k storage.Key) require { return func(b *storage.Batch) { b.RequireAbsent(k) } }
	value := func(k storage.Key, v string) require { return func(b *storage.Batch) { b.RequireValue(k, []byte(v)) } }
	tests := []struct {
		name  string
		conds []require
		holds bool
	}{
		{"absent key absent", []require{absent(nodeKey(3))}, true},
		{"present key absent", []require{absent(nodeKey(1))}, false},
		{"key holding its value", []require{value(nodeKey(1), "one")}, true},
		{"key holding another value", []require{value(nodeKey(1), "on")}, false},
		{"key holding a longer value", []require{value(nodeKey(1), "one!")}, false},
		{"absent key holding a value", []require{value(nodeKey(3), "one")}, false},
		{"absent key holding the empty value", []require{value(nodeKey(3), "")}, false},
		{"empty value held", []require{value(empty, "")}, true},
		{"empty value absent", []require{absent(empty)}, false},
		{"system row holding its value", []require{value(system, "system")}, true},
		{"system row absent", []require{absent(system)}, false},
		{"every condition holds", []require{value(nodeKey(1), "one"), value(nodeKey(2), "two"), absent(nodeKey(3))}, true},
		{"the last condition fails", []require{value(nodeKey(1), "one"), value(nodeKey(2), "two"), absent(nodeKey(2))}, false},
		{"the first condition fails", []require{absent(nodeKey(1)), value(nodeKey(2), "two")}, false},
		{"two conditions on one key, both hold", []require{value(nodeKey(1), "one"), value(nodeKey(1), "one")}, true},
		{"two conditions on one key, one holds", []require{value(nodeKey(1), "one"), absent(nodeKey(1))}, false},
	}
	for _, tt := range tests {
		for _, w := range writers {
			for _, shape := range conditionalShapes {
				var b storage.Batch
				for _, c := range tt.conds {
					c(&b)
				}
				shape.fill(&b)
				if !b.Conditional() || b.Err() != nil {
					t.Fatalf("%s: Conditional %v, Err %v", tt.name, b.Conditional(), b.Err())
				}
				what := fmt.Sprintf("%s of %s, %s", w.name, shape.name, tt.name)
				if m.holds(&b) != tt.holds {
					t.Fatalf("%s: the model says %v", what, !tt.holds)
				}
				err := w.write(e, &b)
				switch {
				case tt.holds && err != nil:
					t.Errorf("%s = %v, want nil", what, err)
				case !tt.holds && !errors.Is(err, storage.ErrConflict):
					t.Errorf("%s = %v, want ErrConflict", what, err)
				}
				if err == nil {
					m.apply(&b)
				}
				checkTables(t, what, e, m.tables())
				// Put back what a batch that held changed, so that every
				// case starts from the seed.
				var undo storage.Batch
				undo.DeleteRange(storage.TenantAll(tenantA.tenant, storage.AdjacencyOut))
				undo.Delete(nodeKey(3))
				undo.Delete(nodeKey(4))
				seed.All()(func(_ int, mu storage.Mutation) bool { undo.Put(mu.Key, mu.Value); return true })
				m.apply(&undo)
				must(t, e.Write(&undo))
			}
		}
	}
}

// conditionalShapes are the mutations that the cases of
// testConditionalBatches add to their conditions: none (a pure check),
// writes of the keys the conditions name (create if absent, compare and
// swap, delete if unchanged), and a range deletion beside them.
var conditionalShapes = []struct {
	name string
	fill func(*storage.Batch)
}{
	{"a batch of conditions alone", func(*storage.Batch) {}},
	{"a batch writing the keys it names", func(b *storage.Batch) {
		b.Put(nodeKey(3), []byte("three"))
		b.Put(nodeKey(1), []byte("ONE"))
		b.Delete(nodeKey(2))
	}},
	{"a batch with a range deletion", func(b *storage.Batch) {
		b.Put(storage.AdjacencyOutKey(tenantA.tenant, uuid.UUID{15: 1}, 1, 0, 0, uuid.UUID{15: 2}), []byte("edge"))
		b.DeleteRange(storage.TenantAll(tenantB.tenant, storage.Traces))
		b.Put(nodeKey(4), []byte("four"))
	}},
}

// testConditionalRaces races conditional writers, by both writes, beside
// writers without conditions on the same family: compare-and-swap
// increments of one counter, each retried until it lands, must count
// exactly (no two acknowledged swaps from one value), and of several
// create-if-absent batches of one key exactly one lands, and its value is
// the one stored. Run it with -race.
func testConditionalRaces(t *testing.T, h Harness) {
	const (
		swappers  = 4
		swaps     = 25
		creators  = 6
		bystander = 40
	)
	e := open(t, h)
	counter := nodeKey(1)
	encode := func(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }
	must(t, e.Put(counter, encode(0)))

	var wg sync.WaitGroup
	var mu sync.Mutex
	from := make(map[uint64]int) // acknowledged swaps from each value
	for w := range swappers {
		wr := writers[w%len(writers)]
		wg.Go(func() {
			for range swaps {
				for {
					v, err := e.Get(counter)
					if err != nil {
						t.Errorf("get the counter: %v", err)
						return
					}
					n := binary.BigEndian.Uint64(v)
					var b storage.Batch
					b.RequireValue(counter, v)
					b.Put(counter, encode(n+1))
					b.Put(nodeKey(byte(10+w)), encode(n))
					err = wr.write(e, &b)
					if errors.Is(err, storage.ErrConflict) {
						continue
					}
					if err != nil {
						t.Errorf("%s of a swap from %d: %v", wr.name, n, err)
						return
					}
					mu.Lock()
					from[n]++
					mu.Unlock()
					break
				}
			}
		})
	}
	created := storage.TraceKey(tenantA.tenant, uuid.UUID{15: 1})
	results := make([]error, creators)
	for c := range creators {
		wr := writers[c%len(writers)]
		wg.Go(func() {
			var b storage.Batch
			b.RequireAbsent(created)
			b.Put(created, []byte{byte(c)})
			results[c] = wr.write(e, &b)
		})
	}
	for w := range writers {
		wr := writers[w]
		wg.Go(func() {
			for i := range bystander {
				var b storage.Batch
				b.Put(nodeKey(byte(100+w)), encode(uint64(i)))
				if err := wr.write(e, &b); err != nil {
					t.Errorf("%s without conditions: %v", wr.name, err)
					return
				}
			}
		})
	}
	wg.Wait()

	if got := binary.BigEndian.Uint64(mustGet(t, e, counter)); got != swappers*swaps {
		t.Errorf("counter after %d acknowledged swaps = %d", swappers*swaps, got)
	}
	for n, times := range from {
		if times != 1 {
			t.Errorf("%d swaps from %d were acknowledged", times, n)
		}
	}
	winner := -1
	for c, err := range results {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("creators %d and %d both created the key", winner, c)
		case err == nil:
			winner = c
		case !errors.Is(err, storage.ErrConflict):
			t.Errorf("creator %d: %v, want nil or ErrConflict", c, err)
		}
	}
	if winner < 0 {
		t.Fatal("no creator created the key")
	}
	if got := mustGet(t, e, created); len(got) != 1 || int(got[0]) != winner {
		t.Errorf("the key holds %x, the winner was creator %d", got, winner)
	}
}

// testTamperedConditions changes a batch's conditions after they were
// recorded, where Batch's own checks can no longer see it: a condition's
// key replaced by a forged one, its kind by an unknown one. Write and
// WriteDurable must refuse the batch whole with the sentinel of the fault,
// whether the condition would have held or not, and apply nothing.
func testTamperedConditions(t *testing.T, h Harness) {
	e := open(t, h)
	m := model{}
	must(t, e.Put(nodeKey(1), []byte("one")))
	m[nodeKey(1)] = []byte("one")
	type tamper struct {
		name   string
		change func(*storage.Condition)
		want   error
	}
	var tampers []tamper
	for _, f := range forgedKeys() {
		tampers = append(tampers, tamper{"key with " + f.name, func(c *storage.Condition) { c.Key = f.key }, storage.ErrInvalidKey})
	}
	for _, kind := range []storage.ConditionKind{0, storage.ConditionValue + 1, 0xff} {
		tampers = append(tampers, tamper{fmt.Sprintf("condition kind %d", kind), func(c *storage.Condition) { c.Kind = kind }, storage.ErrUnknownKind})
	}
	for _, tm := range tampers {
		for _, w := range writers {
			var b storage.Batch
			b.RequireValue(nodeKey(1), []byte("one"))
			b.RequireAbsent(nodeKey(2))
			b.Put(nodeKey(2), []byte("two"))
			for at := range 2 {
				conds := *internalConditions(&b)
				saved := conds[at]
				tm.change(&conds[at])
				if b.Err() != nil {
					t.Fatalf("a batch changed after it was built reports %v: the tampering did not bypass Batch", b.Err())
				}
				what := fmt.Sprintf("%s of a batch whose condition %d has a %s", w.name, at, tm.name)
				if err := w.write(e, &b); !errors.Is(err, tm.want) {
					t.Errorf("%s = %v, want %v", what, err, tm.want)
				}
				checkTables(t, what, e, m.tables())
				conds[at] = saved
			}
		}
	}
}

// internalConditions returns the condition slice a Batch keeps to itself.
func internalConditions(b *storage.Batch) *[]storage.Condition {
	return field(b, "conditions").Addr().Interface().(*[]storage.Condition)
}
