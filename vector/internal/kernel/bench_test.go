package kernel

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDots measures a walk step: 24 random rows of a matrix of
// 100,000 rows of 128 dimensions (51 MB, larger than most caches), by
// the kernel this CPU takes and by the portable one.
func BenchmarkDots(b *testing.B) {
	const dim, rows, batch = 128, 100_000, 24
	r := rand.New(rand.NewPCG(1, 2))
	vecs := make([]float32, dim*rows)
	for i := range vecs {
		vecs[i] = r.Float32()
	}
	q := vecs[:dim]
	batches := make([][]uint32, 4096)
	for i := range batches {
		for range batch {
			batches[i] = append(batches[i], r.Uint32N(rows))
		}
	}
	out := make([]float32, batch)
	had := hasAVX512
	defer func() { hasAVX512 = had }()
	for _, path := range []struct {
		name   string
		avx512 bool
	}{{"avx512", had}, {"portable", false}} {
		b.Run("path="+path.name, func(b *testing.B) {
			hasAVX512 = path.avx512
			i := 0
			for b.Loop() {
				Dots(q, vecs, batches[i%len(batches)], out)
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/row")
		})
	}
}
