package jobs_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"telha.dev/core/storage/rocksdb"
	"telha.dev/jobs"
)

// BenchmarkRocksDB measures the queue on RocksDB with default store
// options, one job per operation, with every state change written
// non-durably (Engine.Write, WAL without fsync) and durably
// (Engine.WriteDurable: each change returns once a log sync covers it;
// the changes of concurrent workers share syncs). Each reports jobs/s:
//
//	go test -run '^$' -bench BenchmarkRocksDB -benchtime 3s ./jobs/
func BenchmarkRocksDB(b *testing.B) {
	payload := make([]byte, 128)
	for _, durable := range []bool{false, true} {
		open := func(b *testing.B) *jobs.Queue {
			e, err := rocksdb.Open(rocksdb.Config{Path: b.TempDir(), CreateIfMissing: true})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = e.Close() })
			s, err := jobs.NewStore(e, jobs.Options{Durable: durable})
			if err != nil {
				b.Fatal(err)
			}
			return tenantQueue(b, s, 1)
		}
		fill := func(b *testing.B, q *jobs.Queue, n int) {
			for range n {
				if _, err := q.Enqueue(payload, jobs.EnqueueOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		}
		claimComplete := func(q *jobs.Queue, owner string) error {
			l, err := q.Claim(owner)
			if err != nil {
				return err
			}
			return q.Complete(l)
		}
		report := func(b *testing.B) { b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s") }
		mode := map[bool]string{false: "write", true: "durable"}[durable]

		b.Run(mode+"/enqueue", func(b *testing.B) {
			q := open(b)
			b.ResetTimer()
			fill(b, q, b.N)
			report(b)
		})
		b.Run(mode+"/claim+complete", func(b *testing.B) {
			q := open(b)
			fill(b, q, b.N)
			b.ResetTimer()
			for range b.N {
				if err := claimComplete(q, "w"); err != nil {
					b.Fatal(err)
				}
			}
			report(b)
		})
		b.Run(mode+"/claim+complete-8-workers", func(b *testing.B) {
			q := open(b)
			fill(b, q, b.N)
			b.ResetTimer()
			var wg sync.WaitGroup
			for w := range 8 {
				wg.Go(func() {
					for {
						err := claimComplete(q, fmt.Sprint("w", w))
						if errors.Is(err, jobs.ErrNoJob) {
							return
						}
						if err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			report(b)
		})
		b.Run(mode+"/enqueue+claim+complete", func(b *testing.B) {
			q := open(b)
			b.ResetTimer()
			for range b.N {
				fill(b, q, 1)
				if err := claimComplete(q, "w"); err != nil {
					b.Fatal(err)
				}
			}
			report(b)
		})
	}
}
