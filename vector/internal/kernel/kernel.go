package kernel

import (
	"fmt"

	"github.com/viterin/vek/vek32"
)

// Dots sets out[i] to the float32 dot product of q and row ids[i] of
// vecs, whose rows are len(q) floats each.
func Dots(q, vecs []float32, ids []uint32, out []float32) {
	rows(q, vecs, ids, out, dotsAVX512, vek32.Dot)
}

// Cosines sets out[i] to the cosine distance of q and row ids[i] of vecs,
// 1 - q·v/(qnorm·norms[ids[i]]): the dot product in float32 as Dots gives
// it, the rest in float64, rounded to float32. The norms are read with
// the rows (and prefetched with them), so a walk does not wait for them
// after each row. A zero norm gives a NaN or an infinity.
func Cosines(q, vecs []float32, norms []float64, qnorm float64, ids []uint32, out []float32) {
	check(len(q), len(vecs), ids, out)
	if len(norms) < len(vecs)/len(q) {
		panic(fmt.Sprintf("kernel: %d norms for %d rows", len(norms), len(vecs)/len(q)))
	}
	if wide(len(q)) {
		cosinesAVX512(q, vecs, ids, out[:len(ids)], norms, qnorm)
		return
	}
	for i, id := range ids {
		out[i] = float32(1 - float64(vek32.Dot(q, row(vecs, len(q), id)))/(qnorm*norms[id]))
	}
}

// SquaredL2s sets out[i] to the float32 squared Euclidean distance of q
// and row ids[i] of vecs, whose rows are len(q) floats each.
func SquaredL2s(q, vecs []float32, ids []uint32, out []float32) {
	rows(q, vecs, ids, out, squaredL2sAVX512, squaredL2)
}

// rows runs a kernel of one float32 per row: the AVX-512 one where the
// rows take it, else the portable one row by row.
func rows(q, vecs []float32, ids []uint32, out []float32, avx512 func(q, vecs []float32, ids []uint32, out []float32), portable func(a, b []float32) float32) {
	check(len(q), len(vecs), ids, out)
	if wide(len(q)) {
		avx512(q, vecs, ids, out[:len(ids)])
		return
	}
	for i, id := range ids {
		out[i] = portable(q, row(vecs, len(q), id))
	}
}

// squaredL2 is the portable squared distance (vek32 has none: its
// Distance rounds a square root, whose square is no longer the sum).
func squaredL2(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0, d1, d2, d3 := a[i]-b[i], a[i+1]-b[i+1], a[i+2]-b[i+2], a[i+3]-b[i+3]
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// wide reports whether rows of dim floats take the AVX-512 path: any
// dim, its last dim % 16 components loaded masked.
func wide(dim int) bool { return hasAVX512 && dim > 0 }

func row(vecs []float32, dim int, id uint32) []float32 {
	at := int(id) * dim
	return vecs[at : at+dim]
}

// check panics, as an index out of range does, unless every row ids[i]
// of dim elements lies in a matrix of n elements and out has room for
// every distance: the assembly trusts both.
func check(dim, n int, ids []uint32, out []float32) {
	if dim == 0 {
		panic("kernel: empty query")
	}
	if len(out) < len(ids) {
		panic(fmt.Sprintf("kernel: %d ids, room for %d distances", len(ids), len(out)))
	}
	var top uint32
	for _, id := range ids {
		top = max(top, id)
	}
	if len(ids) > 0 && (int(top)+1)*dim > n {
		panic(fmt.Sprintf("kernel: row %d of a matrix of %d rows", top, n/dim))
	}
}
