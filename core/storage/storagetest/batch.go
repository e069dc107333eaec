package storagetest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// nodeKey is a node version key of tenant A with a small id: the plain rows
// of tests that need a handful of keys.
func nodeKey(id byte) storage.Key {
	return storage.NodeVersionKey(tenantA.tenant, uuid.UUID{15: id}, 0, 0)
}

// writer is one of the engine's two batch writes.
type writer struct {
	name  string
	write func(storage.Engine, *storage.Batch) error
}

var writers = []writer{
	{"Write", storage.Engine.Write},
	{"WriteDurable", storage.Engine.WriteDurable},
}

// testBatchAtomicity checks that a poisoned batch applies nothing, whichever
// mutation poisoned it, and that a good batch applies all of its mutations
// in order, across families, by either write.
func testBatchAtomicity(t *testing.T, h Harness) {
	e := open(t, h)
	m := model{}
	var b storage.Batch
	b.Put(nodeKey(1), []byte("one"))
	b.Put(nodeKey(2), []byte("two"))
	m.apply(&b)
	must(t, e.Write(&b))

	poisons := []struct {
		name   string
		poison func(*storage.Batch)
	}{
		{"Put zero Key", func(b *storage.Batch) { b.Put(storage.Key{}, []byte("x")) }},
		{"Delete zero Key", func(b *storage.Batch) { b.Delete(storage.Key{}) }},
		{"Put zero-scope key", func(b *storage.Batch) {
			b.Put(storage.NodeVersionKey(storage.TenantScope{}, uuid.UUID{15: 1}, 0, 0), []byte("x"))
		}},
		{"Put key of an unknown job state", func(b *storage.Batch) {
			b.Put(storage.JobKey(tenantA.tenant, storage.JobDead+1, 0, 0, uuid.UUID{15: 1}), []byte("x"))
		}},
		{"Delete source key at the reserved slot", func(b *storage.Batch) {
			b.Delete(storage.SourceChunkKey(tenantA.tenant, uuid.UUID{15: 1}, storage.RedactionChunkIndex))
		}},
	}
	for _, p := range poisons {
		for _, w := range writers {
			var b storage.Batch
			b.Put(nodeKey(3), []byte("three"))
			b.Delete(nodeKey(1))
			b.Put(nodeKey(2), []byte("changed"))
			b.Put(storage.TraceKey(tenantB.tenant, uuid.UUID{15: 3}), nil)
			p.poison(&b)
			b.Put(nodeKey(4), []byte("four"))
			if !errors.Is(b.Err(), storage.ErrInvalidKey) {
				t.Fatalf("%s: Batch.Err() = %v, want ErrInvalidKey", p.name, b.Err())
			}
			if err := w.write(e, &b); !errors.Is(err, storage.ErrInvalidKey) {
				t.Errorf("%s of a batch poisoned by %s = %v, want ErrInvalidKey", w.name, p.name, err)
			}
			checkTables(t, w.name+" of a batch poisoned by "+p.name, e, m.tables())
		}
	}

	for _, w := range writers {
		var empty storage.Batch
		if err := w.write(e, &empty); err != nil {
			t.Errorf("%s of an empty batch: %v", w.name, err)
		}
		checkTables(t, w.name+" of an empty batch", e, m.tables())
	}

	for i, w := range writers {
		round := fmt.Sprintf("%s round %d", w.name, i)
		var b storage.Batch
		b.Put(nodeKey(10), []byte("new "+round))
		b.Put(nodeKey(2), []byte("overwritten "+round))
		b.Delete(nodeKey(1))  // present in round 0 only
		b.Delete(nodeKey(99)) // never present
		// Several mutations of one key: the last one wins.
		b.Put(nodeKey(11), []byte("put then deleted"))
		b.Delete(nodeKey(11))
		b.Delete(nodeKey(12))
		b.Put(nodeKey(12), []byte("deleted then put "+round))
		b.Put(nodeKey(13), []byte("first"))
		b.Put(nodeKey(13), []byte("second "+round))
		// Other families and scopes in the same batch.
		b.Put(storage.TraceKey(tenantB.tenant, uuid.UUID{15: 1}), nil)
		b.Put(storage.SystemScope{}.JobKey(storage.JobQueued, 0, 0, uuid.UUID{15: 1}), []byte(round))
		m.apply(&b)
		if err := w.write(e, &b); err != nil {
			t.Fatalf("%s: %v", round, err)
		}
		checkTables(t, round, e, m.tables())
	}
}

// testConcurrentBatchVisibility runs a writer that rewrites a set of rows
// in several families with one batch per generation, while readers check
// that every snapshot and every scan sees one whole generation: never half
// a batch.
func testConcurrentBatchVisibility(t *testing.T, h Harness) {
	const (
		generations = 200
		rowsPerSet  = 16
	)
	e := open(t, h)
	s := tenantA.tenant
	nodes := storage.TenantAll(s, storage.NodeVersions)
	edges := storage.TenantAll(s, storage.AdjacencyOut)
	markers := storage.TenantAll(s, storage.Traces)
	// Generation g writes value g at every node and edge row, and the even
	// or the odd marker set, deleting the other. A marker's id starts with
	// its set's byte.
	markerByte := [2]byte{0xe, 0xf}
	batch := func(g uint64) *storage.Batch {
		var b storage.Batch
		v := binary.BigEndian.AppendUint64(nil, g)
		for i := range rowsPerSet {
			id := uuid.UUID{15: byte(i)}
			b.Put(storage.NodeVersionKey(s, id, 0, 0), v)
			b.Put(storage.AdjacencyOutKey(s, id, 1, 0, 0, id), v)
			b.Put(storage.TraceKey(s, uuid.UUID{0: markerByte[g%2], 15: byte(i)}), v)
			b.Delete(storage.TraceKey(s, uuid.UUID{0: markerByte[1-g%2], 15: byte(i)}))
		}
		return &b
	}
	must(t, e.Write(batch(0)))

	// generationOf returns the one generation all rows carry, or an error.
	generationOf := func(what string, rows []storage.KV, err error) (uint64, error) {
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		if len(rows) != rowsPerSet {
			return 0, fmt.Errorf("%s: %d rows, want %d: saw part of a batch", what, len(rows), rowsPerSet)
		}
		g := binary.BigEndian.Uint64(rows[0].Value)
		for _, kv := range rows {
			if got := binary.BigEndian.Uint64(kv.Value); got != g {
				return 0, fmt.Errorf("%s: generations %d and %d in one view: saw part of a batch", what, g, got)
			}
		}
		return g, nil
	}
	// checkView reads every set through r and returns an error unless all
	// carry one generation, with the matching marker set.
	checkView := func(r storage.Reader) error {
		var gens [3]uint64
		for i, rg := range []storage.ScanRange{nodes, edges, markers} {
			rows, err := scanAll(r, rg)
			g, err := generationOf(rg.String(), rows, err)
			if err != nil {
				return err
			}
			if i == 2 && rows[0].Key[storage.ScopeLen] != markerByte[g%2] {
				return fmt.Errorf("generation %d with the wrong marker set", g)
			}
			gens[i] = g
		}
		if gens[0] != gens[1] || gens[1] != gens[2] {
			return fmt.Errorf("one snapshot saw generations %v: saw part of a batch", gens)
		}
		return nil
	}

	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		defer done.Store(true)
		for g := uint64(1); g <= generations; g++ {
			if err := writers[g%2].write(e, batch(g)); err != nil {
				t.Errorf("generation %d: %v", g, err)
				return
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			for first := true; first || !done.Load(); first = false {
				snap, err := e.Snapshot()
				if err != nil {
					t.Errorf("Snapshot: %v", err)
					return
				}
				err = checkView(snap)
				if cerr := snap.Close(); cerr != nil {
					t.Errorf("snapshot Close: %v", cerr)
				}
				if err == nil {
					// A lone scan sees one consistent state too.
					rows, serr := scanAll(e, nodes)
					_, err = generationOf("scan", rows, serr)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
