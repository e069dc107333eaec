package rocksdb

import (
	"fmt"
	"iter"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/linxGnu/grocksdb"

	"telha.dev/core/storage"
)

// The benchmarks run each workload through the engine, through a raw
// grocksdb loop that does the same work with the same read options, and
// through storage.MemoryEngine, side by side:
//
//	go test -run '^$' -bench . -benchmem -count 6 ./storage/rocksdb/ | tee bench.txt
//	benchstat -col /impl bench.txt
const (
	benchRows       = 1000 // rows of the scanned node, and rows per batch
	benchValueLen   = 100
	benchNeighbours = 2 // other tenants with the same rows, around the scanned one
)

// benchStore is a store holding benchRows versions of one node in each of
// several tenants, flushed and compacted into table files so that reads
// take the production path through the block cache and bloom filters; and
// a memory engine with the same rows.
type benchStore struct {
	rocks   *Engine
	mem     *storage.MemoryEngine
	scope   storage.TenantScope
	node    uuid.UUID
	present storage.Key
	absent  storage.Key // same scope and node, a version never written
}

func newBenchStore(b *testing.B) *benchStore {
	b.Helper()
	cfg := Config{Path: filepath.Join(b.TempDir(), "store"), CreateIfMissing: true}
	bs := &benchStore{rocks: openTest(b, cfg), mem: storage.NewMemoryEngine(), node: benchID(0)}
	value := make([]byte, benchValueLen)
	for i := range benchNeighbours + 1 {
		s := benchScope(i)
		if i == benchNeighbours/2 {
			bs.scope = s
		}
		var batch storage.Batch
		for v := range benchRows {
			batch.Put(nodeKey(s, bs.node, 2*v), value)
		}
		if err := bs.rocks.Write(&batch); err != nil {
			b.Fatal(err)
		}
		if err := bs.mem.Write(&batch); err != nil {
			b.Fatal(err)
		}
	}
	bs.present = nodeKey(bs.scope, bs.node, 2*(benchRows/2))
	bs.absent = nodeKey(bs.scope, bs.node, 2*(benchRows/2)+1)
	if err := flushFamily(bs.rocks, storage.NodeVersions); err != nil {
		b.Fatal(err)
	}
	bs.rocks.db.CompactRangeCF(bs.rocks.families[storage.NodeVersions], grocksdb.Range{})
	return bs
}

// benchID and benchScope are fixed, so that every run reads the same
// bytes: which block a key lands in, or whether an absent key is a bloom
// false positive, would otherwise change from run to run.
func benchID(i int) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "bench %d", i))
}

func benchScope(i int) storage.TenantScope {
	s, err := storage.NewTenantScope(benchID(100+i), benchID(200+i))
	if err != nil {
		panic(err)
	}
	return s
}

// loop runs op b.N times and reports, besides the time per op, the keys
// per second and the CPU time per op of the whole process. On a shared
// machine wall time swings with the other tenants' load; CPU time much
// less, so it is the steadier base for comparing engine and raw loop.
//
// The loop runs locked to one OS thread, so that its time, RocksDB's
// included, can be profiled apart from the garbage collector's threads
// (add --tid to the report to see that thread alone):
//
//	perf record -o scan.perf ./rocksdb.test -test.run '^$' -test.bench 'Scan/impl=cursor$' -test.benchtime 10s
//	perf report -i scan.perf --sort dso,symbol
//
// (Debian's valgrind 3.19 stops at the Go runtime's RDTSCP instruction.)
func loop(b *testing.B, keysPerOp int, op func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := processCPU(b)
	for b.Loop() {
		op()
	}
	report(b, keysPerOp, start)
}

// loopWorkers runs b.N calls of op, shared among workers goroutines that
// call it at once (worker w calls op(w)), and reports as loop does.
func loopWorkers(b *testing.B, workers, keysPerOp int, op func(w int)) {
	var calls atomic.Int64
	start := processCPU(b)
	b.ResetTimer()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for calls.Add(1) <= int64(b.N) {
				op(w)
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	report(b, keysPerOp, start)
}

// report adds the keys per second and the CPU time per op since start.
func report(b *testing.B, keysPerOp int, start time.Duration) {
	cpu := processCPU(b) - start
	b.ReportMetric(float64(keysPerOp*b.N)/b.Elapsed().Seconds(), "keys/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// processCPU returns the user and system CPU time of the process so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkScan(b *testing.B) {
	bs := newBenchStore(b)
	r := storage.NodeHistory(bs.scope, bs.node)
	scanWith := func(scan func(storage.ScanRange) iter.Seq2[storage.KV, error]) func(b *testing.B) {
		return func(b *testing.B) {
			loop(b, benchRows, func() {
				n := 0
				for _, err := range scan(r) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != benchRows {
					b.Fatalf("scanned %d rows, want %d", n, benchRows)
				}
			})
		}
	}
	view := func(rd storage.Reader) func(storage.ScanRange) iter.Seq2[storage.KV, error] {
		return func(r storage.ScanRange) iter.Seq2[storage.KV, error] { return storage.ScanView(rd, r) }
	}
	b.Run("impl=engine", scanWith(bs.rocks.Scan))
	b.Run("impl=view", scanWith(view(bs.rocks)))
	b.Run("impl=raw", func(b *testing.B) {
		loop(b, benchRows, func() { rawScan(b, bs.rocks, r, true) })
	})
	b.Run("impl=raw-nocopy", func(b *testing.B) {
		loop(b, benchRows, func() { rawScan(b, bs.rocks, r, false) })
	})
	b.Run("impl=cursor", func(b *testing.B) {
		buf := make([]byte, maxBatch)
		loop(b, benchRows, func() { cursorScan(b, bs.rocks, r, buf) })
	})
	b.Run("impl=memory", scanWith(bs.mem.Scan))
	b.Run("impl=memory-view", scanWith(view(bs.mem)))
}

// cursorScan is the floor under any scan that hands out copies of its rows
// on this RocksDB: the engine's C cursor, with the engine's read options,
// filling one reused buffer of the engine's largest batch. It pays
// RocksDB's iteration and the copy out of RocksDB's memory, and none of
// what returning rows that the caller owns costs in Go (a new buffer per
// batch, the garbage collector, the yield). No engine can read more rows
// per second than this, so raw over cursor bounds the ratio that batching
// can reach over the raw loop.
func cursorScan(b *testing.B, e *Engine, r storage.ScanRange, buf []byte) {
	lower, upper := r.Bounds()
	o, err := openNative(&e.native, e.native.families[r.Family()], nil, r.WithinOneScope(), lower, upper)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for done := o.cursor == nil; !done; {
		f, err := fillNative(o.cursor, buf)
		if err != nil {
			b.Fatal(err)
		}
		n, done = n+f.rows, f.done
	}
	if n != benchRows {
		b.Fatalf("scanned %d rows, want %d", n, benchRows)
	}
}

// rawScan is the engine's scan written directly against grocksdb, without
// the engine's lock and closure: the same read options, the same copy of
// each row into one allocation when copyRows is set.
func rawScan(b *testing.B, e *Engine, r storage.ScanRange, copyRows bool) {
	lower, upper := r.Bounds()
	ro := grocksdb.NewDefaultReadOptions()
	ro.SetPrefixSameAsStart(true)
	ro.SetIterateUpperBound(upper)
	it := e.db.NewIteratorCF(ro, e.families[r.Family()])
	n := 0
	for it.Seek(lower); it.Valid(); it.Next() {
		k, v := it.Key().Data(), it.Value().Data()
		if copyRows {
			buf := make([]byte, len(k)+len(v))
			copy(buf[copy(buf, k):], v)
		}
		n++
	}
	if err := it.Err(); err != nil {
		b.Fatal(err)
	}
	it.Close()
	ro.Destroy()
	if n != benchRows {
		b.Fatalf("scanned %d rows, want %d", n, benchRows)
	}
}

func BenchmarkGet(b *testing.B) {
	bs := newBenchStore(b)
	for _, c := range []struct {
		name string
		key  storage.Key
		want error
	}{
		{"present", bs.present, nil},
		{"absent", bs.absent, storage.ErrNotFound},
	} {
		getEngine := func(e storage.Engine) func(b *testing.B) {
			return func(b *testing.B) {
				loop(b, 1, func() {
					// Both engines return ErrNotFound unwrapped, and errors.Is
					// would cost more than the engine's own overhead.
					if _, err := e.Get(c.key); err != c.want {
						b.Fatal(err)
					}
				})
			}
		}
		b.Run(fmt.Sprintf("key=%s/impl=engine", c.name), getEngine(bs.rocks))
		b.Run(fmt.Sprintf("key=%s/impl=raw", c.name), func(b *testing.B) {
			kb := c.key.Bytes()
			h := bs.rocks.families[c.key.Family()]
			loop(b, 1, func() { rawGet(b, bs.rocks, h, kb, c.want == nil) })
		})
		b.Run(fmt.Sprintf("key=%s/impl=memory", c.name), getEngine(bs.mem))
	}
}

// rawGet is the engine's Get written directly against grocksdb: a pinned
// read, one copy, the pin released.
func rawGet(b *testing.B, e *Engine, h *grocksdb.ColumnFamilyHandle, key []byte, present bool) {
	v, err := e.db.GetPinnedCF(e.read, h, key)
	if err != nil {
		b.Fatal(err)
	}
	if v.Exists() != present {
		b.Fatalf("key present %t, want %t", v.Exists(), present)
	}
	if v.Exists() {
		data := v.Data()
		out := make([]byte, len(data))
		copy(out, data)
		v.Destroy()
	}
}

func BenchmarkWrite(b *testing.B) {
	bs := newBenchStore(b)
	s := benchScope(benchNeighbours + 1)
	node := benchID(1)
	value := make([]byte, benchValueLen)
	var batch storage.Batch
	for v := range benchRows {
		batch.Put(nodeKey(s, node, v), value)
	}
	writeEngine := func(e storage.Engine) func(b *testing.B) {
		return func(b *testing.B) {
			loop(b, benchRows, func() {
				if err := e.Write(&batch); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
	b.Run("impl=engine", writeEngine(bs.rocks))
	b.Run("impl=raw", func(b *testing.B) { loop(b, benchRows, rawWrite(b, bs.rocks, bs.rocks.write, &batch)) })
	b.Run("impl=memory", writeEngine(bs.mem))
}

// rawWrite returns the engine's batch write of b written directly against
// grocksdb, with write options wo: the keys are copied out beforehand. It
// may run on any goroutine.
func rawWrite(b *testing.B, e *Engine, wo *grocksdb.WriteOptions, batch *storage.Batch) func() {
	var keys, values [][]byte
	for _, m := range batch.All() {
		keys, values = append(keys, m.Key.Bytes()), append(values, m.Value)
	}
	h := e.families[storage.NodeVersions]
	return func() {
		wb := grocksdb.NewWriteBatch()
		for i, k := range keys {
			wb.PutCF(h, k, values[i])
		}
		if err := e.db.Write(wo, wb); err != nil {
			b.Error(err)
		}
		wb.Destroy()
	}
}

// BenchmarkWriteDurable writes four-row batches that sync the log, as a
// tombstone cascade or a job state change does, from one writer and from
// eight at once: the engine (checks, the sync mark) against a raw grocksdb
// write with the same sync option. Concurrent sync writes join RocksDB's
// write groups, whose leader syncs the log once for all of them;
// writes/sync reports how many shared each sync.
func BenchmarkWriteDurable(b *testing.B) {
	bs := newBenchStore(b)
	value := make([]byte, benchValueLen)
	const maxWorkers = 8
	batches := make([]*storage.Batch, maxWorkers)
	for w := range batches {
		batches[w] = new(storage.Batch)
		for v := range 4 {
			batches[w].Put(nodeKey(benchScope(benchNeighbours+2), benchID(10+w), v), value)
		}
	}
	for _, workers := range []int{1, maxWorkers} {
		b.Run(fmt.Sprintf("workers=%d/impl=engine", workers), func(b *testing.B) {
			syncs := walSyncs(b, bs.rocks)
			loopWorkers(b, workers, 4, func(w int) {
				if err := bs.rocks.WriteDurable(batches[w]); err != nil {
					b.Error(err)
				}
			})
			b.ReportMetric(float64(b.N)/float64(walSyncs(b, bs.rocks)-syncs), "writes/sync")
		})
		b.Run(fmt.Sprintf("workers=%d/impl=raw", workers), func(b *testing.B) {
			raw := make([]func(), workers)
			for w := range raw {
				raw[w] = rawWrite(b, bs.rocks, bs.rocks.durable, batches[w])
			}
			syncs := walSyncs(b, bs.rocks)
			loopWorkers(b, workers, 4, func(w int) { raw[w]() })
			b.ReportMetric(float64(b.N)/float64(walSyncs(b, bs.rocks)-syncs), "writes/sync")
		})
	}
}
