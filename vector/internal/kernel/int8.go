package kernel

import (
	"fmt"
	"math"
)

// Quantize writes to codes the int8 code of v, one per component, and
// returns the scale that decodes it: v[j] ≈ scale·codes[j], to within
// scale/2. The scale is the float32 nearest above the row's largest
// magnitude over 127 (for rows of subnormals, a coarse one), so that
// each row uses the whole range of its codes whatever its norm, and a
// row decodes on its own (nothing learned from other rows drifts as rows
// are added). A row of zeros, or one with a NaN or an infinity, gets the
// scale 0 and zero codes.
func Quantize(v []float32, codes []int8) float32 {
	if len(codes) != len(v) {
		panic(fmt.Sprintf("kernel: %d codes for %d components", len(codes), len(v)))
	}
	var top float64
	for _, x := range v {
		top = max(top, math.Abs(float64(x)))
	}
	if top == 0 || top-top != 0 {
		clear(codes)
		return 0
	}
	scale := float32(top / 127)
	if float64(scale)*127 < top {
		// Rounded down (or, for a row of subnormals, to 0): a code would
		// then need more than 127 steps, and the clamp would cut more
		// than half a step off. One float32 up is always enough.
		scale = math.Nextafter32(scale, math.MaxFloat32)
	}
	for j, x := range v {
		codes[j] = int8(max(-127, min(127, math.Round(float64(x)/float64(scale)))))
	}
	return scale
}

// Int8Fast reports whether Int8Dots takes rows of dim codes faster than
// the float32 kernels take rows of dim floats: where it runs in vector
// instructions (AVX-512, any dim). Elsewhere the portable
// loop converts code by code, slower than the portable float32 kernels
// (vek32's, in AVX2 on most amd64 CPUs), and a walk gains nothing from
// the smaller rows.
func Int8Fast(dim int) bool { return wide(dim) }

// Int8Dots sets out[i] to the dot product of q and row ids[i] of codes,
// decoded: scales[ids[i]]·Σ q[j]·code[j], summed in float32. Rows are
// len(q) codes each, a quarter of the bytes of a float32 row, so that a
// walk that waits on its rows waits on a quarter as many cache lines.
func Int8Dots(q []float32, codes []int8, scales []float32, ids []uint32, out []float32) {
	check(len(q), len(codes), ids, out)
	if len(scales) < len(codes)/len(q) {
		panic(fmt.Sprintf("kernel: %d scales for %d rows", len(scales), len(codes)/len(q)))
	}
	if wide(len(q)) {
		int8DotsAVX512(q, codes, ids, out[:len(ids)], scales)
		return
	}
	dim := len(q)
	for i, id := range ids {
		at := int(id) * dim
		out[i] = scales[id] * int8Dot(q, codes[at:at+dim])
	}
}

// int8Dot is the portable dot product of q and a row of codes, in four
// sums so that the additions do not wait on each other.
func int8Dot(q []float32, c []int8) float32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 float32
	j := 0
	for ; j+4 <= len(q); j += 4 {
		s0 += q[j] * float32(c[j])
		s1 += q[j+1] * float32(c[j+1])
		s2 += q[j+2] * float32(c[j+2])
		s3 += q[j+3] * float32(c[j+3])
	}
	for ; j < len(q); j++ {
		s0 += q[j] * float32(c[j])
	}
	return (s0 + s1) + (s2 + s3)
}
