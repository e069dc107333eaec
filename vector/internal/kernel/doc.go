// Package kernel measures one query against many rows of a matrix at
// once, the inner loop of telha.dev/vector's graph walk.
//
// A walk over a large matrix waits for memory, not arithmetic: each row it
// measures is a random 512 bytes (128 float32s) that no cache holds. The
// kernels therefore take the whole batch of rows a walk step measures,
// the unvisited links of one node, and ask the CPU for the cache lines of
// row i+5 (PREFETCHT0) before they compute row i, so that the misses of
// several rows are in flight while the arithmetic runs, as hnswlib's
// search prefetches its next neighbour: a row costs about 10 ns of
// arithmetic and a miss of the last-level cache about 100. The arithmetic
// itself is AVX-512 (16 lanes, two accumulators, fused multiply-adds)
// where the CPU has it (F, BW and VL), of any dimension: the last
// dimension % 16 components of a row are read with masked loads, which
// read nothing past the row, so GloVe's 100 dimensions take the same path
// as SIFT's 128 (BenchmarkDots: 35 to 47 ns a row where vek32 took 81 to
// 132, int8 codes 17 to 36 where the portable loop took 104 to 199).
// Elsewhere it is vek32's (AVX2 where the CPU has it, plain Go
// otherwise), one row at a time.
//
// Int8Dots measures rows of int8 codes (Quantize) the same way: a row of
// 128 dimensions is then two cache lines instead of eight, each code
// widened and converted to a float32 in the register (VPMOVSXBD,
// VCVTDQ2PS) before it meets the query. Its portable loop is slower than
// the float32 kernels' (Int8Fast says where it is not).
//
// The float32 kernels' results are float32 sums in some order, with or without fused
// multiply-adds: within the error bound that telha.dev/vector's
// kernel.go proves for any such order, so the exact answer it derives
// from them does not depend on which path ran.
//
// The assembly is granted the asm capability in
// analyzers/authority/authority.conf; nothing else here needs one.
package kernel
