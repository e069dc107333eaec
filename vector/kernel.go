package vector

import (
	"math"

	"github.com/viterin/vek/vek32"
)

// The in-memory paths measure each stored vector twice when they must.
// First with a float32 SIMD kernel (for the scans vek32: AVX2 and FMA
// where the CPU has them, plain Go elsewhere; for the graph walk the batch
// kernels of internal/kernel, AVX-512 where the CPU has it, whose sums
// keep the same bound), which reads 512 bytes of a 128-dimension row
// in a few nanoseconds; then, only for a row that may enter the answer,
// with distance, the float64 reference that the store path uses. The
// answer is therefore the reference's, bit for bit: same nodes, same
// order, same distances. What makes the shortcut safe is a bound on the
// float32 kernel's error, so that a row is skipped only when even its
// nearest possible reference distance is beyond the current k-th.
//
// The bound (Higham, "Accuracy and Stability of Numerical Algorithms",
// §3.1): a float32 dot product of n terms, in any summation order, with or
// without fused multiply-adds, is within γn·Σ|aᵢbᵢ| ≤ γn·‖a‖‖b‖ of the
// exact one, γn = n·u/(1-n·u), u = 2⁻²⁴; a squared distance, a sum of
// non-negative terms, is within a relative γ(n+2). Underflow adds at most
// 2⁻¹⁵⁰ per operation. The float64 reference has its own rounding, about
// n·2⁻⁵³, which the slack covers by taking twice γ(n+8). Non-finite kernel
// results (an overflow of float32 on vectors near math.MaxFloat32) bound
// nothing: such rows are measured by the reference.

// probe is a query prepared for the in-memory matrix.
type probe struct {
	metric Metric
	q      []float32
	qnorm  float64 // ‖q‖, as distance takes it
	rel    float64 // relative error bound of the float32 kernels
	tiny   float64 // absolute error bound from underflow
}

func newProbe(m Metric, q []float32) probe {
	n := float64(len(q))
	const u = 1.0 / (1 << 24)
	return probe{
		metric: m,
		q:      q,
		qnorm:  norm(q),
		rel:    2 * (n + 8) * u / (1 - (n+8)*u),
		tiny:   2 * n * 0x1p-148,
	}
}

// estimate returns the float32 kernel's distance from the query to v,
// whose norm is vnorm. It may be NaN or infinite.
func (p *probe) estimate(v []float32, vnorm float64) float64 {
	return kernelDistance(p.metric, p.q, v, p.qnorm, vnorm)
}

// floor returns a number no larger than distance(p.metric, p.q, v,
// p.qnorm), given est = p.estimate(v, vnorm): -Inf when est bounds
// nothing.
func (p *probe) floor(est, vnorm float64) float64 {
	if math.IsNaN(est) || math.IsInf(est, 0) {
		return math.Inf(-1)
	}
	switch p.metric {
	case Cosine:
		return est - p.rel - p.tiny/(p.qnorm*vnorm)
	case Dot:
		return est - p.rel*p.qnorm*vnorm - p.tiny
	default: // L2
		return math.Sqrt(max(0, est*est*(1-p.rel)-p.tiny))
	}
}

// lowerBound returns a number no larger than d, the float64 value that
// was rounded to the float32 e: the graph keeps its distances in float32,
// which rounds to within a relative 2⁻²⁴ (2⁻²³ here, for margin), or an
// absolute 2⁻¹⁴⁹ where the value underflows.
func lowerBound(e float32) float64 {
	x := float64(e)
	return x - math.Abs(x)*0x1p-23 - 0x1p-149
}

// upperBound returns a number no smaller than d, the float64 value that
// was rounded to the float32 e (see lowerBound).
func upperBound(e float32) float64 {
	x := float64(e)
	return x + math.Abs(x)*0x1p-23 + 0x1p-149
}

// kernelDistance is the float32 kernel's distance between a and b under m,
// lower is nearer; na and nb are their norms. The approximate index walks
// with it.
func kernelDistance(m Metric, a, b []float32, na, nb float64) float64 {
	switch m {
	case Cosine:
		return 1 - float64(vek32.Dot(a, b))/(na*nb)
	case Dot:
		return -float64(vek32.Dot(a, b))
	default: // L2
		return float64(vek32.Distance(a, b))
	}
}
