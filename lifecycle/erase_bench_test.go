package lifecycle

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
)

// benchBytesEnv sets the size of the tenant that BenchmarkEraseTenant
// erases and BenchmarkExportTenant exports, in bytes of keys and values
// (default 16 MiB, so that `make bench` stays short):
// TELHA_BENCH_TENANT_BYTES=1073741824 for 1 GiB.
const benchBytesEnv = "TELHA_BENCH_TENANT_BYTES"

// benchTenantBytes returns the size benchBytesEnv sets.
func benchTenantBytes(b *testing.B) int64 {
	s := os.Getenv(benchBytesEnv)
	if s == "" {
		return 16 << 20
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		b.Fatalf("%s=%q: want a positive number of bytes", benchBytesEnv, s)
	}
	return v
}

// BenchmarkEraseTenant erases a tenant of the configured size from a
// RocksDB store that also holds a tenant a quarter its size: the count
// pass, the durable range deletion with its ledger entry, the compaction
// and the verification scan. It reports rows and megabytes (of keys and
// values) erased per second. Each iteration fills a new tenant first,
// outside the timer.
func BenchmarkEraseTenant(b *testing.B) {
	size := benchTenantBytes(b)
	e := storagetest.OpenRocksDB(b, filepath.Join(b.TempDir(), "store"))
	fillBytes(b, e, storagetest.TenantScope(b), size/4)
	var rows, n uint64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		scope := storagetest.TenantScope(b)
		fillBytes(b, e, scope, size)
		b.StartTimer()
		er, err := EraseTenant(e, scope, EraseOptions{})
		if err != nil {
			b.Fatal(err)
		}
		r, m := er.Entry.Rows()
		rows, n = rows+r, n+m
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(rows)/sec, "rows/s")
	b.ReportMetric(float64(n)/sec/1e6, "MB/s")
	b.ReportMetric(float64(n)/float64(b.N)/1e6, "MB/tenant")
}

// BenchmarkExportTenant exports a tenant of the configured size from a
// RocksDB store that also holds a tenant a quarter its size, to nowhere:
// rows and megabytes of the export file per second.
func BenchmarkExportTenant(b *testing.B) {
	size := benchTenantBytes(b)
	e := storagetest.OpenRocksDB(b, filepath.Join(b.TempDir(), "store"))
	fillBytes(b, e, storagetest.TenantScope(b), size/4)
	scope := storagetest.TenantScope(b)
	provision(b, e, scope, "bench")
	fillBytes(b, e, scope, size)
	var st Stats
	for b.Loop() {
		var err error
		if st, err = Export(e, scope, io.Discard, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	report(b, st)
}

// eraseBenchValueLen is the value length of the benchmark's rows: node versions
// of about a kilobyte, with their index rows and adjacency.
const eraseBenchValueLen = 1024

// fillBytes writes rows into scope until their keys and values reach size
// bytes: a node version with a 1 KiB value, its two index rows, and an
// adjacency pair per node.
func fillBytes(tb testing.TB, e storage.Engine, scope storage.TenantScope, size int64) {
	tb.Helper()
	value := make([]byte, eraseBenchValueLen)
	for i := range value {
		value[i] = byte(i*7 + 3)
	}
	var b storage.Batch
	var written int64
	for i := 0; written < size; i++ {
		id := uuid.UUID{0: 0x10, 12: byte(i >> 24), 13: byte(i >> 16), 14: byte(i >> 8), 15: byte(i)}
		to := uuid.UUID{0: 0x20, 12: byte(i >> 24), 13: byte(i >> 16), 14: byte(i >> 8), 15: byte(i)}
		ts := storage.Timestamp(i)
		node := storage.NodeVersionKey(scope, id, ts, ts)
		b.Put(node, value)
		b.Put(storage.ValidTimeIndexKey(scope, ts, ts, id, storage.IndexNode), node.Bytes())
		b.Put(storage.TxTimeIndexKey(scope, ts, ts, id, storage.IndexNode), node.Bytes())
		b.Put(storage.AdjacencyOutKey(scope, id, 1, ts, ts, to), value[:40])
		b.Put(storage.AdjacencyInKey(scope, to, 1, ts, ts, id), value[:40])
		written += int64(storage.VersionKeyLen + eraseBenchValueLen + 2*(storage.TemporalIndexKeyLen+storage.VersionKeyLen) + 2*(storage.AdjacencyKeyLen+40))
		if b.Len() >= 5000 {
			if err := e.Write(&b); err != nil {
				tb.Fatal(err)
			}
			b.Reset()
		}
	}
	if err := e.Write(&b); err != nil {
		tb.Fatal(err)
	}
}
