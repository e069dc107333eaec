package sources_test

import (
	"fmt"
	"io"
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
	"telha.dev/core/storage/storagetest"
	"telha.dev/sources"
)

// benchSizes are the document sizes of the throughput benchmarks.
var benchSizes = []int{64 << 10, 8 << 20}

// eachBenchEngine runs f on a new store of each engine: the memory
// baseline, and RocksDB as `telha` opens it (default options, not the test
// matrix's small memtables, which would measure flushes).
func eachBenchEngine(b *testing.B, f func(b *testing.B, e storage.Engine)) {
	engines := []struct {
		name string
		open func() (storage.Engine, error)
	}{
		{"memory", func() (storage.Engine, error) { return storage.NewMemoryEngine(), nil }},
		{"rocksdb", func() (storage.Engine, error) {
			return rocksdb.Open(rocksdb.Config{Path: b.TempDir(), CreateIfMissing: true})
		}},
	}
	for _, k := range engines {
		b.Run("engine="+k.name, func(b *testing.B) {
			e, err := k.open()
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { e.Close() })
			f(b, e)
		})
	}
}

// BenchmarkIngest measures Ingest of a new document (both passes: check
// and hash, then chunk and write, chunk 0 durably), in MB/s of text.
func BenchmarkIngest(b *testing.B) {
	eachBenchEngine(b, func(b *testing.B, e storage.Engine) {
		s := sources.Open(e, sources.Options{})
		for _, n := range benchSizes {
			doc := text(n, 1)
			b.Run(fmt.Sprintf("size=%dKiB", n>>10), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					if _, created, err := s.IngestBytes(storagetest.TenantScope(b), doc); err != nil || !created {
						b.Fatal(created, err)
					}
				}
			})
		}
	})
}

// BenchmarkRead measures streaming a stored document back with its hash
// checked (Open, then io.Copy), in MB/s of text.
func BenchmarkRead(b *testing.B) {
	eachBenchEngine(b, func(b *testing.B, e storage.Engine) {
		s := sources.Open(e, sources.Options{})
		for _, n := range benchSizes {
			scope := storagetest.TenantScope(b)
			blob, _, err := s.IngestBytes(scope, text(n, 2))
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("size=%dKiB", n>>10), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					r, err := s.Open(scope, blob.ID)
					if err != nil {
						b.Fatal(err)
					}
					if m, err := io.Copy(io.Discard, r); err != nil || m != int64(n) {
						b.Fatal(m, err)
					}
					r.Close()
				}
			})
		}
	})
}
