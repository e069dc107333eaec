//go:build !amd64

package kernel

var hasAVX512 = false // the tests switch paths through it, as on amd64

func dotsAVX512(q, vecs []float32, ids []uint32, out []float32) {
	panic("kernel: AVX-512 kernel on a CPU without it")
}

func cosinesAVX512(q, vecs []float32, ids []uint32, out []float32, norms []float64, qnorm float64) {
	panic("kernel: AVX-512 kernel on a CPU without it")
}

func squaredL2sAVX512(q, vecs []float32, ids []uint32, out []float32) {
	panic("kernel: AVX-512 kernel on a CPU without it")
}

func int8DotsAVX512(q []float32, codes []int8, ids []uint32, out []float32, scales []float32) {
	panic("kernel: AVX-512 kernel on a CPU without it")
}

// Prefetch asks the CPU to bring the cache lines that hold s into its
// caches; without a prefetch instruction it does nothing.
func Prefetch(s []uint32) {}
