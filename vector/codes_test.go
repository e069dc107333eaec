package vector

import (
	"math"
	"testing"

	"github.com/google/uuid"
	"pgregory.net/rapid"
)

// TestCodeInterval: under every metric, the interval a code's distance
// gives holds the reference distance, for rows and queries of any scale
// (tiny components, components near the largest float32, zeros), so that
// dropping a candidate on it never drops one of the k nearest.
func TestCodeInterval(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		metric := rapid.SampledFrom([]Metric{Cosine, Dot, L2}).Draw(t, "metric")
		dim := rapid.SampledFrom([]int{5, 16, 21, 32, 48, 100}).Draw(t, "dim")
		scale := rapid.SampledFrom([]float64{1e-44, 1e-41, 1e-38, 1e-20, 1, 1e20, 1e37}).Draw(t, "scale")
		component := rapid.Custom(func(t *rapid.T) float32 {
			return float32(rapid.Float64Range(-1, 1).Draw(t, "c") * scale)
		})
		// aligned rows put every component but the largest just under half
		// a step from its code, and the query's components all positive:
		// every rounding error of the codes adds up, as the bound allows.
		aligned := rapid.Bool().Draw(t, "aligned")
		step := float32(scale / 127)
		vector := func(label string) []float32 {
			if aligned {
				v := make([]float32, dim)
				v[0] = 127 * step
				for j := 1; j < dim; j++ {
					v[j] = (float32(rapid.IntRange(-126, 125).Draw(t, "code")) + 0.499) * step
				}
				return v
			}
			for {
				v := rapid.SliceOfN(component, dim, dim).Draw(t, label)
				if metric != Cosine || norm(v) != 0 {
					return v
				}
			}
		}
		mx := newMatrix(dim)
		mx.ann = &ann{metric: metric, quantized: true}
		rows := rapid.IntRange(1, 20).Draw(t, "rows")
		for slot := range rows {
			mx.add(uuid.New(), version{}, vector("row"))
			mx.ann.quantize(mx, uint32(slot))
		}
		q := vector("query")
		if aligned {
			for j := range q {
				q[j] = float32(math.Abs(float64(q[j])))
			}
		}
		p := newProbe(metric, q)
		cq := newCodeQuery(mx, &p)
		ids := make([]uint32, rows)
		for i := range ids {
			ids[i] = uint32(i)
		}
		out := make([]float32, rows)
		cq.Distances(ids, out)
		for i, id := range ids {
			ref := distance(metric, q, mx.row(id), p.qnorm)
			lo, hi := cq.interval(id, out[i])
			if math.IsNaN(lo) || math.IsNaN(hi) {
				continue
			}
			if !(lo <= ref && ref <= hi) {
				t.Fatalf("%s, row %d: reference %v outside [%v, %v] around the code's %v", metric, id, ref, lo, hi, out[i])
			}
		}
	})
}
