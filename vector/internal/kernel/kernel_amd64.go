package kernel

import "golang.org/x/sys/cpu"

// hasAVX512 reports whether the kernels may run in AVX-512: the
// foundation, and the byte masks (BW) and 128-bit forms (VL) with which
// the int8 kernel loads a row's tail. Every CPU with AVX-512 but the
// Xeon Phi has all three.
var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL

// The AVX-512 kernels (kernel_amd64.s). len(q) is positive, every row
// ids[i] lies in vecs, and len(out) == len(ids).
//
//go:noescape
func dotsAVX512(q, vecs []float32, ids []uint32, out []float32)

//go:noescape
func cosinesAVX512(q, vecs []float32, ids []uint32, out []float32, norms []float64, qnorm float64)

//go:noescape
func squaredL2sAVX512(q, vecs []float32, ids []uint32, out []float32)

// Prefetch asks the CPU to bring the cache lines that hold s into its
// caches, without waiting for them: for data a walk will read a little
// later, such as the links of the node it will explore next.
//
//go:noescape
func Prefetch(s []uint32)

//go:noescape
func int8DotsAVX512(q []float32, codes []int8, ids []uint32, out []float32, scales []float32)
