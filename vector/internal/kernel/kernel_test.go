package kernel

import (
	"math"
	"testing"

	"pgregory.net/rapid"
)

// within reports whether got, a float32 sum of n terms whose absolute
// values add up to abs, is the exact sum exact to within the bound that
// any order of float32 additions and fused multiply-adds keeps
// (Higham §3.1: γn·abs, γn = n·u/(1-n·u), u = 2⁻²⁴), plus underflow.
func within(got float32, exact, abs float64, n int) bool {
	const u = 1.0 / (1 << 24)
	g := float64(n+2) * u / (1 - float64(n+2)*u)
	return math.Abs(float64(got)-exact) <= g*abs+float64(n)*0x1p-148
}

// matrix draws a query and a matrix of rows of its dimension: every
// dimension up to 70 (every tail of the 16 lanes, after zero to four
// whole blocks) and some wide ones. Past the end of the query and of the
// matrix lie NaNs, within the slices' capacity: a kernel that read a lane
// past a row's tail would return a NaN.
func matrix(t *rapid.T) (q, vecs []float32, ids []uint32) {
	dim := rapid.OneOf(rapid.IntRange(1, 70), rapid.SampledFrom([]int{100, 128, 144, 300, 768})).Draw(t, "dim")
	rows := rapid.IntRange(1, 40).Draw(t, "rows")
	component := rapid.Float32Range(-4, 4)
	q = poisoned(rapid.SliceOfN(component, dim, dim).Draw(t, "q"))
	vecs = poisoned(rapid.SliceOfN(component, rows*dim, rows*dim).Draw(t, "vecs"))
	ids = rapid.SliceOfN(rapid.Uint32Range(0, uint32(rows-1)), 0, 50).Draw(t, "ids")
	return q, vecs, ids
}

// poisoned returns s with 16 NaNs after its end, in its capacity.
func poisoned(s []float32) []float32 {
	out := append(make([]float32, 0, len(s)+16), s...)
	for range 16 {
		out = append(out, float32(math.NaN()))
	}
	return out[:len(s)]
}

// TestDots: every path gives each row's dot product within the float32
// bound of the exact one, in the order of ids, duplicates included.
func TestDots(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q, vecs, ids := matrix(t)
		dim := len(q)
		out := make([]float32, len(ids)+1)
		out[len(ids)] = 42
		Dots(q, vecs, ids, out)
		for i, id := range ids {
			var exact, abs float64
			for j, x := range vecs[int(id)*dim : int(id+1)*dim] {
				exact += float64(x) * float64(q[j])
				abs += math.Abs(float64(x) * float64(q[j]))
			}
			if !within(out[i], exact, abs, dim) {
				t.Fatalf("dim %d, row %d: dot %v, exact %v", dim, id, out[i], exact)
			}
		}
		if out[len(ids)] != 42 {
			t.Fatalf("Dots wrote past its ids")
		}
	})
}

// TestCosines: the cosine distance is the dot product of Dots, divided
// and subtracted in float64, bit for bit.
func TestCosines(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q, vecs, ids := matrix(t)
		dim := len(q)
		norms := make([]float64, len(vecs)/dim)
		for i := range norms {
			norms[i] = rapid.Float64Range(0, 100).Draw(t, "norm")
		}
		qnorm := rapid.Float64Range(0, 100).Draw(t, "qnorm")
		dots := make([]float32, len(ids))
		Dots(q, vecs, ids, dots)
		out := make([]float32, len(ids))
		Cosines(q, vecs, norms, qnorm, ids, out)
		for i, id := range ids {
			want := float32(1 - float64(dots[i])/(qnorm*norms[id]))
			if math.Float32bits(out[i]) != math.Float32bits(want) && !(out[i] != out[i] && want != want) {
				t.Fatalf("dim %d, row %d: cosine %v, want %v", dim, id, out[i], want)
			}
		}
	})
}

// TestSquaredL2s: likewise for squared distances.
func TestSquaredL2s(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		q, vecs, ids := matrix(t)
		dim := len(q)
		out := make([]float32, len(ids))
		SquaredL2s(q, vecs, ids, out)
		for i, id := range ids {
			var exact float64
			for j, x := range vecs[int(id)*dim : int(id+1)*dim] {
				d := float64(x) - float64(q[j])
				exact += d * d
			}
			if !within(out[i], exact, exact, dim+2) {
				t.Fatalf("dim %d, row %d: squared distance %v, exact %v", dim, id, out[i], exact)
			}
		}
	})
}

// TestOutOfRange: a row past the matrix, or too little room for the
// answers, panics before the assembly reads anything.
func TestOutOfRange(t *testing.T) {
	q := make([]float32, 16)
	vecs := make([]float32, 3*16)
	for _, c := range []struct {
		name string
		ids  []uint32
		out  []float32
		q    []float32
	}{
		{"row past the end", []uint32{0, 3}, make([]float32, 2), q},
		{"huge row", []uint32{math.MaxUint32}, make([]float32, 1), q},
		{"short out", []uint32{0, 1}, make([]float32, 1), q},
		{"empty query", []uint32{0}, make([]float32, 1), nil},
	} {
		cosines := func(q, vecs []float32, ids []uint32, out []float32) {
			Cosines(q, vecs, make([]float64, 3), 1, ids, out)
		}
		for name, kernel := range map[string]func(q, vecs []float32, ids []uint32, out []float32){"Dots": Dots, "Cosines": cosines, "SquaredL2s": SquaredL2s} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s, %s: no panic", name, c.name)
					}
				}()
				kernel(c.q, vecs, c.ids, c.out)
			}()
		}
	}
}

// TestShortNorms: fewer norms than rows panics too.
func TestShortNorms(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	Cosines(make([]float32, 16), make([]float32, 3*16), make([]float64, 2), 1, []uint32{0}, make([]float32, 1))
}

// TestPrefetch: prefetching reads nothing and takes any slice, the empty
// one too.
func TestPrefetch(t *testing.T) {
	Prefetch(nil)
	Prefetch([]uint32{1})
	Prefetch(make([]uint32, 0, 1))
}
