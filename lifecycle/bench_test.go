package lifecycle

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
)

// benchRows is the tenant the benchmarks move: 2,000 entities, 30,000
// rows of every family with 100-byte values (about 5 MB of export).
const (
	benchEntities = 2000
	benchValueLen = 100
)

// benchEngines are the engines the benchmarks run on.
func benchEngines(b *testing.B) map[string]func() storage.Engine {
	return map[string]func() storage.Engine{
		"memory": func() storage.Engine { return storage.NewMemoryEngine() },
		"rocksdb": func() storage.Engine {
			// The defaults an operator's store runs with, not the test
			// matrix's small memtables.
			e, err := rocksdb.Open(rocksdb.Config{Path: b.TempDir(), CreateIfMissing: true})
			if err != nil {
				b.Fatal(err)
			}
			return e
		},
	}
}

// benchTenant opens an engine, closed when b ends, holding one tenant.
func benchTenant(b *testing.B, open func() storage.Engine) (storage.Engine, storage.TenantScope) {
	e := open()
	b.Cleanup(func() { _ = e.Close() })
	a := scopeN(b, 1)
	provision(b, e, a, "bench")
	fill(b, e, a, benchEntities, benchValueLen)
	return e, a
}

// report sets the figures of one run: MB/s from the file's bytes, and
// rows/s.
func report(b *testing.B, st Stats) {
	b.SetBytes(st.Bytes)
	b.ReportMetric(float64(st.Total())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkExport(b *testing.B) {
	for name, open := range benchEngines(b) {
		b.Run(name, func(b *testing.B) {
			e, a := benchTenant(b, open)
			var st Stats
			for b.Loop() {
				var err error
				if st, err = Export(e, a, io.Discard, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			report(b, st)
		})
	}
}

// BenchmarkImport imports the file into a new tenant each time: both
// passes, the check and the write, and the final durable batch.
func BenchmarkImport(b *testing.B) {
	for name, open := range benchEngines(b) {
		b.Run(name, func(b *testing.B) {
			e, a := benchTenant(b, open)
			var buf bytes.Buffer
			if _, err := Export(e, a, &buf, Options{}); err != nil {
				b.Fatal(err)
			}
			file := buf.Bytes()
			var st Stats
			n := uint64(0)
			for b.Loop() {
				b.StopTimer()
				n++
				to, err := storage.NewTenantScope(uuid.UUID(binary.BigEndian.AppendUint64(make([]byte, 8, 16), n)), uuid.UUID{0xbe})
				if err != nil {
					b.Fatal(err)
				}
				provision(b, e, to, "bench-"+uuid.UUID(to.Tenant()).String()[24:])
				b.StartTimer()
				if st, err = Import(e, to, bytes.NewReader(file), Options{}); err != nil {
					b.Fatal(err)
				}
			}
			report(b, st)
		})
	}
}
