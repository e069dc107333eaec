package etcd_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/etcd/etcdtest"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
)

// BenchmarkEngines runs the same workloads on the three engines in one
// run: MemoryEngine, RocksDB (its production configuration, on this
// machine's disk) and etcd (a three-member cluster on loopback, in this
// process, sharing its cores):
//
//	cd core/storage/etcd
//	go test -run '^$' -bench 'Engines/.*/op=(Get|Scan)' -benchtime 1s -count 6 . > engines.txt
//	go test -run '^$' -bench 'Engines/.*/op=Write' -benchtime 300x -count 6 . >> engines.txt
//	benchstat -col /engine engines.txt
//
// Writes run a fixed number of batches: MemoryEngine copies a family on
// every write, so under a time budget its run would grow until each batch
// copies hundreds of thousands of rows.
//
// Get reads one present key; Scan reads benchRows rows of one node; Write
// commits batches of one row or of benchRows rows with WriteDurable
// (durable on stable storage: an fsynced WAL for RocksDB, a quorum of
// fsynced WALs for etcd, nothing for memory), from one writer or eight at
// once, into a fresh engine.
func BenchmarkEngines(b *testing.B) {
	engines := []struct {
		name string
		open func(b *testing.B) storage.Engine
	}{
		{"memory", func(*testing.B) storage.Engine { return storage.NewMemoryEngine() }},
		{"rocksdb", func(b *testing.B) storage.Engine {
			e, err := rocksdb.Open(rocksdb.Config{Path: filepath.Join(b.TempDir(), "store"), CreateIfMissing: true})
			if err != nil {
				b.Fatal(err)
			}
			return e
		}},
		{"etcd", func(b *testing.B) storage.Engine { return etcdtest.Engine(b) }},
	}
	for _, eng := range engines {
		b.Run("engine="+eng.name, func(b *testing.B) {
			e := eng.open(b)
			b.Cleanup(func() { _ = e.Close() })
			s := storagetest.TenantScope(b)
			r, keys := benchNode(b, e, s)
			b.Run("op=Get", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if _, err := e.Get(keys[i%len(keys)]); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "gets/s")
			})
			b.Run("op=Scan", func(b *testing.B) {
				for b.Loop() {
					n := 0
					for _, err := range e.Scan(r) {
						if err != nil {
							b.Fatal(err)
						}
						n++
					}
					if n != benchRows {
						b.Fatalf("scan: %d rows, want %d", n, benchRows)
					}
				}
				b.ReportMetric(float64(b.N*benchRows)/b.Elapsed().Seconds(), "rows/s")
			})
			for _, rows := range []int{1, benchRows} {
				for _, writers := range []int{1, 8} {
					b.Run(fmt.Sprintf("op=Write/rows=%d/writers=%d", rows, writers), func(b *testing.B) {
						// A fresh engine: what one run writes does not
						// slow the next (MemoryEngine copies a family per
						// write).
						w := eng.open(b)
						b.Cleanup(func() { _ = w.Close() })
						benchWrite(b, w, s, rows, writers)
					})
				}
			}
		})
	}
}

// benchRows is the rows of the scanned node and of each written batch;
// benchValueLen the length of every value.
const (
	benchRows     = 100
	benchValueLen = 100
)

// benchNode writes benchRows versions of one node and returns their range
// and keys.
func benchNode(b *testing.B, e storage.Engine, s storage.TenantScope) (storage.ScanRange, []storage.Key) {
	b.Helper()
	id := uuid.New()
	var batch storage.Batch
	keys := make([]storage.Key, benchRows)
	for v := range benchRows {
		keys[v] = nodeKey(s, id, v)
		batch.Put(keys[v], make([]byte, benchValueLen))
	}
	if err := e.WriteDurable(&batch); err != nil {
		b.Fatal(err)
	}
	return storage.NodeHistory(s, id), keys
}

// benchWrite commits b.N batches of rows new rows, shared among writers
// goroutines, and reports rows and batches per second.
func benchWrite(b *testing.B, e storage.Engine, s storage.TenantScope, rows, writers int) {
	value := make([]byte, benchValueLen)
	next := make(chan struct{})
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			var batch storage.Batch
			for range next {
				batch.Reset()
				id := uuid.New()
				for v := range rows {
					batch.Put(nodeKey(s, id, v), value)
				}
				if err := e.WriteDurable(&batch); err != nil {
					b.Error(err)
				}
			}
		})
	}
	b.ResetTimer()
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(b.N*rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "batches/s")
}
