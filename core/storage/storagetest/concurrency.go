package storagetest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// testConcurrentReadersWriters runs writers, each owning its own keys in two
// tenants and writing by every path, against readers that scan, get and
// read snapshots. Readers check every answer as they go (order, bounds,
// scope, a value that belongs to its key, snapshots that do not move); at
// the end the engine must hold exactly the union of the writers' models.
func testConcurrentReadersWriters(t *testing.T, h Harness) {
	const (
		numWriters      = 3
		opsPerWriter    = 200
		numReaders      = 2
		idsPerWriter    = 6
		versionsPerNode = 4
	)
	rng := newRand(t)
	e := open(t, h)
	scopes := []scope{tenantA, tenantD}
	// Writer w owns the nodes whose id starts with byte w+1, in both scopes.
	ownID := func(w int, r *rand.Rand) uuid.UUID { return uuid.UUID{0: byte(w + 1), 15: byte(r.IntN(idsPerWriter))} }
	keyOf := func(w int, r *rand.Rand) storage.Key {
		s, id := scopes[r.IntN(len(scopes))].tenant, ownID(w, r)
		v := storage.Timestamp(r.IntN(versionsPerNode))
		if r.IntN(2) == 0 {
			return storage.NodeVersionKey(s, id, v, 0)
		}
		return storage.AdjacencyOutKey(s, id, storage.EdgeTypeHash(v), 0, 0, id)
	}
	// A value starts with its key, so a reader can tell a value that
	// belongs to another key.
	valueOf := func(k storage.Key, seq int) []byte { return binary.BigEndian.AppendUint64(k.Bytes(), uint64(seq)) }

	models := make([]model, numWriters)
	var done atomic.Int32
	var wg sync.WaitGroup
	for w := range numWriters {
		models[w] = model{}
		r := rand.New(rand.NewPCG(rng.Uint64(), uint64(w)))
		wg.Go(func() {
			defer done.Add(1)
			m := models[w]
			for seq := range opsPerWriter {
				var b storage.Batch
				var err error
				switch r.IntN(4) {
				case 0:
					k := keyOf(w, r)
					b.Put(k, valueOf(k, seq))
					err = applyOneByOne(e, &b)
				case 1:
					b.Delete(keyOf(w, r))
					err = applyOneByOne(e, &b)
				case 2:
					for range 1 + r.IntN(8) {
						if k := keyOf(w, r); r.IntN(3) == 0 {
							b.Delete(k)
						} else {
							b.Put(k, valueOf(k, seq))
						}
					}
					err = writers[r.IntN(len(writers))].write(e, &b)
				case 3:
					s, id := scopes[r.IntN(len(scopes))].tenant, ownID(w, r)
					rg := storage.NodeHistory(s, id)
					if r.IntN(2) == 0 {
						rg = storage.AdjacencyOutRange(s, id)
					}
					err = e.DeleteRange(rg)
					for k := range m {
						if rg.Contains(k) {
							delete(m, k)
						}
					}
				}
				if err != nil {
					t.Errorf("writer %d op %d: %v", w, seq, err)
					return
				}
				m.apply(&b)
			}
		})
	}
	for i := range numReaders {
		r := rand.New(rand.NewPCG(rng.Uint64(), uint64(numWriters+i)))
		wg.Go(func() {
			for first := true; first || done.Load() < numWriters; first = false {
				s := scopes[r.IntN(len(scopes))]
				rg := storage.TenantAll(s.tenant, []storage.ColumnFamily{storage.NodeVersions, storage.AdjacencyOut}[r.IntN(2)])
				var err error
				switch r.IntN(3) {
				case 0:
					_, err = checkedScan(e, s, rg)
				case 1:
					k := keyOf(r.IntN(numWriters), r)
					v, gerr := e.Get(k)
					switch {
					case errors.Is(gerr, storage.ErrNotFound):
					case gerr != nil:
						err = gerr
					case !bytes.HasPrefix(v, k.Bytes()):
						err = fmt.Errorf("get %s returned the value of another key", k)
					}
				case 2:
					err = checkStableSnapshot(e, s, rg)
				}
				if err != nil {
					t.Errorf("reader %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()

	all := model{}
	for _, m := range models {
		for k, v := range m {
			all[k] = v
		}
	}
	checkTables(t, "after the concurrent writers", e, all.tables())
}

// checkedScan scans rg of scope s and checks order, bounds, scope, and that
// each value starts with its key.
func checkedScan(r storage.Reader, s scope, rg storage.ScanRange) ([]storage.KV, error) {
	rows, err := scanAll(r, rg)
	if err == nil {
		err = checkRows(rg, rows)
	}
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", rg, err)
	}
	for _, kv := range rows {
		if !s.owns(kv.Key) {
			return nil, fmt.Errorf("scan %s: ISOLATION: row of another scope %x", rg, kv.Key)
		}
		if !bytes.HasPrefix(kv.Value, kv.Key) {
			return nil, fmt.Errorf("scan %s: row %x carries the value of another key", rg, kv.Key)
		}
	}
	return rows, nil
}

// checkStableSnapshot scans rg twice through one snapshot while writers
// run: both scans must agree.
func checkStableSnapshot(e storage.Engine, s scope, rg storage.ScanRange) error {
	snap, err := e.Snapshot()
	if err != nil {
		return err
	}
	first, err := checkedScan(snap, s, rg)
	if err != nil {
		return errors.Join(err, snap.Close())
	}
	second, err := checkedScan(snap, s, rg)
	if err := errors.Join(err, snap.Close()); err != nil {
		return err
	}
	if !slices.EqualFunc(first, second, func(a, b storage.KV) bool {
		return bytes.Equal(a.Key, b.Key) && bytes.Equal(a.Value, b.Value)
	}) {
		return fmt.Errorf("snapshot scan of %s changed between two reads: %d then %d rows", rg, len(first), len(second))
	}
	return nil
}
