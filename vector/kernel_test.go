package vector

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// hostileComponent draws float32 values from every range where float32
// arithmetic misbehaves: zero and negative zero, subnormals, tiny and huge
// magnitudes, the extremes, and ordinary values.
var hostileComponent = rapid.Custom(func(t *rapid.T) float32 {
	magnitudes := []float32{0, math.SmallestNonzeroFloat32, 1e-40, 1e-30, 1e-19, 1e-3, 1, 3, 1e3, 1e19, 1e30, math.MaxFloat32}
	x := magnitudes[rapid.IntRange(0, len(magnitudes)-1).Draw(t, "magnitude")]
	x *= rapid.Float32Range(0.5, 1).Draw(t, "mantissa")
	if rapid.Bool().Draw(t, "negative") {
		x = -x
	}
	return x
})

// TestFloorBoundsReference: the floor of the float32 kernel's estimate
// never exceeds the float64 reference distance, for any vectors, so the
// exact in-memory scan never skips a row that belongs in the answer.
func TestFloorBoundsReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dim := rapid.IntRange(1, 300).Draw(t, "dim")
		q := rapid.SliceOfN(hostileComponent, dim, dim).Draw(t, "q")
		v := rapid.SliceOfN(hostileComponent, dim, dim).Draw(t, "v")
		if rapid.Bool().Draw(t, "near") { // a neighbour of q, where cancellation bites
			for i := range v {
				v[i] = q[i] * (1 + rapid.Float32Range(-1e-6, 1e-6).Draw(t, "jitter"))
			}
		}
		for _, m := range []Metric{Cosine, Dot, L2} {
			p := newProbe(m, q)
			vn := norm(v)
			ref := distance(m, q, v, p.qnorm)
			if floor := p.floor(p.estimate(v, vn), vn); floor > ref {
				t.Fatalf("%s: floor %v above reference %v (estimate %v)", m, floor, ref, p.estimate(v, vn))
			}
		}
	})
}

// TestFloorIsTight: on ordinary vectors the floor is within 1e-4 of the
// reference (relative to ‖q‖‖v‖, the scale of a dot product), so the scan
// skips almost every row that cannot win.
func TestFloorIsTight(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q := rapid.SliceOfN(rapid.Float32Range(-1, 1), 128, 128).Draw(t, "q")
		v := rapid.SliceOfN(rapid.Float32Range(-1, 1), 128, 128).Draw(t, "v")
		if norm(q) == 0 || norm(v) == 0 {
			return
		}
		for _, m := range []Metric{Cosine, Dot, L2} {
			p := newProbe(m, q)
			vn := norm(v)
			ref := distance(m, q, v, p.qnorm)
			if gap := ref - p.floor(p.estimate(v, vn), vn); gap > 1e-4*max(1, p.qnorm*vn) {
				t.Fatalf("%s: floor %v below reference %v", m, ref-gap, ref)
			}
		}
	})
}

// TestLowerBoundOfFloat32: the graph keeps distances in float32;
// lowerBound of the rounded value never exceeds the value rounded, over
// every magnitude float32 can hold or not (underflow and overflow
// included), so the floor of a walk's distance still bounds the
// reference.
func TestLowerBoundOfFloat32(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		exp := rapid.IntRange(-170, 140).Draw(t, "exponent")
		d := math.Ldexp(rapid.Float64Range(-1, 1).Draw(t, "mantissa"), exp)
		if lb := lowerBound(float32(d)); lb > d {
			t.Fatalf("lowerBound(float32(%v)) = %v, above it", d, lb)
		}
	})
}
