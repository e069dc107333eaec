package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDots measures a walk step: 24 random rows of a matrix of
// 100,000 rows of 128 dimensions (51 MB, larger than most caches; its
// int8 codes 13 MB), and of 100 (GloVe's, not a multiple of the 16
// lanes), by the kernel this CPU takes and by the portable one.
func BenchmarkDots(b *testing.B) {
	for _, dim := range []int{100, 128} {
		b.Run(fmt.Sprintf("dim=%d", dim), func(b *testing.B) { benchmarkDots(b, dim) })
	}
}

func benchmarkDots(b *testing.B, dim int) {
	const rows, batch = 100_000, 24
	r := rand.New(rand.NewPCG(1, 2))
	vecs := make([]float32, dim*rows)
	for i := range vecs {
		vecs[i] = r.Float32()
	}
	q := vecs[:dim]
	out := make([]float32, batch)
	codes := make([]int8, len(vecs))
	scales := make([]float32, rows)
	for r := range scales {
		scales[r] = Quantize(vecs[r*dim:(r+1)*dim], codes[r*dim:(r+1)*dim])
	}
	kernels := []struct {
		name string
		run  func(ids []uint32)
	}{
		{"float32", func(ids []uint32) { Dots(q, vecs, ids, out) }},
		{"int8", func(ids []uint32) { Int8Dots(q, codes, scales, ids, out) }},
	}
	batches := make([][]uint32, 4096)
	for i := range batches {
		for range batch {
			batches[i] = append(batches[i], r.Uint32N(rows))
		}
	}
	had := hasAVX512
	defer func() { hasAVX512 = had }()
	for _, k := range kernels {
		for _, path := range []struct {
			name   string
			avx512 bool
		}{{"avx512", had}, {"portable", false}} {
			b.Run("rows="+k.name+"/path="+path.name, func(b *testing.B) {
				hasAVX512 = path.avx512
				i := 0
				for b.Loop() {
					k.run(batches[i%len(batches)])
					i++
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/row")
			})
		}
	}
}
