package kernel

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestQuantize: every component decodes to within half a step of the
// scale, subnormal rows too, the largest magnitude takes the code ±127
// where the scale is a normal float32, and rows that cannot be scaled get
// zeros.
func TestQuantize(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Rows of every magnitude, subnormals included, where the scale
		// itself is a subnormal of few bits.
		magnitude := rapid.SampledFrom([]float64{1e-45, 1e-43, 1e-40, 1e-37, 1, 1e30}).Draw(t, "magnitude")
		component := rapid.Custom(func(t *rapid.T) float32 {
			return float32(rapid.Float64Range(-1, 1).Draw(t, "c") * magnitude)
		})
		v := rapid.SliceOfN(component, 1, 300).Draw(t, "v")
		codes := make([]int8, len(v))
		scale := Quantize(v, codes)
		var top float64
		for _, x := range v {
			top = max(top, math.Abs(float64(x)))
		}
		if top == 0 {
			if scale != 0 {
				t.Fatalf("zero row: scale %v", scale)
			}
			return
		}
		peak := false
		for j, x := range v {
			if err := math.Abs(float64(scale)*float64(codes[j]) - float64(x)); err > 0.5001*float64(scale) {
				t.Fatalf("component %d: %v decodes to %v·%d, off by %v", j, x, scale, codes[j], err)
			}
			peak = peak || codes[j] == 127 || codes[j] == -127
		}
		if !peak && scale >= 0x1p-126 { // a subnormal scale is too coarse to reach 127
			t.Fatalf("no component takes the full range: %v", codes)
		}
	})
	for _, v := range [][]float32{{0, 0}, {1, float32(math.NaN())}, {float32(math.Inf(-1)), 1}} {
		codes := []int8{5, 5}
		if scale := Quantize(v, codes); scale != 0 || codes[0] != 0 || codes[1] != 0 {
			t.Errorf("Quantize(%v) = %v, codes %v: want 0 and zeros", v, scale, codes)
		}
	}
}

// TestInt8Dots: every path gives each row's decoded dot product within
// the float32 bound, in the order of ids.
func TestInt8Dots(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q, vecs, ids := matrix(t)
		dim := len(q)
		// Past the codes lie codes of 127: a lane read past a row's tail
		// would move the sum.
		codes := append(make([]int8, len(vecs), len(vecs)+16), slices.Repeat([]int8{127}, 16)...)[:len(vecs)]
		scales := make([]float32, len(vecs)/dim)
		for r := range scales {
			scales[r] = Quantize(vecs[r*dim:(r+1)*dim], codes[r*dim:(r+1)*dim])
		}
		out := make([]float32, len(ids)+1)
		out[len(ids)] = 42
		Int8Dots(q, codes, scales, ids, out)
		for i, id := range ids {
			var exact, abs float64
			for j, c := range codes[int(id)*dim : int(id+1)*dim] {
				exact += float64(c) * float64(q[j])
				abs += math.Abs(float64(c) * float64(q[j]))
			}
			s := float64(scales[id])
			if !within(out[i], s*exact, s*abs, dim+1) {
				t.Fatalf("dim %d, row %d: dot %v, exact %v", dim, id, out[i], s*exact)
			}
		}
		if out[len(ids)] != 42 {
			t.Fatalf("Int8Dots wrote past its ids")
		}
	})
}

// TestInt8OutOfRange: rows past the codes or the scales panic before the
// assembly reads.
func TestInt8OutOfRange(t *testing.T) {
	q := make([]float32, 16)
	for _, c := range []struct {
		name   string
		codes  int
		scales int
		ids    []uint32
	}{
		{"row past the end", 3 * 16, 3, []uint32{3}},
		{"short scales", 3 * 16, 2, []uint32{0}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			Int8Dots(q, make([]int8, c.codes), make([]float32, c.scales), c.ids, make([]float32, len(c.ids)))
		}()
	}
}
