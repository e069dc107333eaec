package vector

import (
	"math"
	"slices"

	"telha.dev/vector/internal/kernel"
)

// The graph walks with int8 codes of the rows where the kernel takes them
// faster (ann.quantized): a row of 128 dimensions is then 128 bytes, two
// cache lines instead of eight, and the walk waits on a quarter of the
// misses. A code's distance is off by at most what rounding each
// component to its row's scale can move it (interval), so after the walk
// the candidates that provably cannot be among the k nearest are dropped
// unmeasured, and the rest are measured again from their float32 rows
// before any enters the answer, which so carries exact distances.

// quantize appends the codes and scale of slot. Under Cosine the scale is
// divided by the row's norm, so that the walk reads nothing else of the
// row.
func (a *ann) quantize(mx *matrix, slot uint32) {
	n := len(a.codes)
	a.codes = slices.Grow(a.codes, mx.dim)[:n+mx.dim]
	scale := float64(kernel.Quantize(mx.row(slot), a.codes[n:]))
	if a.metric == Cosine {
		scale /= mx.norms[slot]
	}
	a.scales = append(a.scales, float32(scale))
}

// codeQuery measures slots of a matrix from a probe with their codes, for
// the graph walk.
type codeQuery struct {
	mx *matrix
	a  *ann
	p  *probe
	// slack times a row's scale bounds the error of its code's dot
	// product with the query: half a step on every component, ‖q‖₁/2,
	// plus the float32 rounding of the kernel's sum and product and of
	// the reference (128·p.rel·‖q‖₁: each of the terms is at most 127
	// steps), plus underflow.
	slack float64
}

func newCodeQuery(mx *matrix, p *probe) codeQuery {
	var l1 float64
	for _, x := range p.q {
		l1 += math.Abs(float64(x))
	}
	return codeQuery{mx: mx, a: mx.ann, p: p, slack: l1*(0.5+128*p.rel) + p.tiny}
}

// Distances implements hnsw.Query. A distance the codes cannot give (the
// float32 sum overflowed) is the reference's.
func (q *codeQuery) Distances(ids []uint32, out []float32) {
	mx, p := q.mx, q.p
	out = out[:len(ids)]
	kernel.Int8Dots(p.q, q.a.codes, q.a.scales, ids, out)
	w := walkQuery{mx: mx, p: p}
	switch p.metric {
	case Cosine:
		for i, id := range ids {
			out[i] = w.finite(1-float64(out[i])/p.qnorm, id)
		}
	case Dot:
		for i, id := range ids {
			out[i] = w.finite(-float64(out[i]), id)
		}
	default: // L2
		for i, id := range ids {
			d, dot := math.NaN(), float64(out[i])
			if dot-dot == 0 { // else clamping at 0 would hide the overflow
				n := mx.norms[id]
				d = math.Sqrt(max(0, p.qnorm*p.qnorm-2*dot+n*n))
			}
			out[i] = w.finite(d, id)
		}
	}
}

// interval returns bounds of the reference distance of slot id, given d,
// the distance Distances gave it. A NaN bound bounds nothing.
func (q *codeQuery) interval(id uint32, d float32) (lo, hi float64) {
	p := q.p
	lo, hi = lowerBound(d), upperBound(d)
	e := float64(q.a.scales[id])*q.slack + 0x1p-149
	switch p.metric {
	case Cosine:
		e = e/p.qnorm + 0x1p-50 // and the float64 division and subtraction
		return lo - e, hi + e
	case Dot:
		return lo - e, hi + e
	default: // L2, whose square the dot product enters twice
		n := q.mx.norms[id]
		e = 2*e + 4*(p.qnorm*p.qnorm+n*n)*0x1p-52
		return math.Sqrt(max(0, lo*lo-e)), math.Sqrt(hi*hi + e)
	}
}

// remeasure drops from sc.found, the walk's candidates nearest first by
// their codes, those that k other candidates are provably nearer than,
// and gives the rest their float32 kernel distances.
func (sc *searchScratch) remeasure(k int) {
	cut := math.Inf(1) // no candidate past the first k is nearer than this
	if len(sc.found) > k {
		cut = math.Inf(-1)
		for _, r := range sc.found[:k] {
			_, hi := sc.codes.interval(r.ID, r.Distance)
			cut = max(cut, hi)
		}
	}
	sc.ids, sc.dists = sc.ids[:0], sc.dists[:0]
	kept := sc.found[:0]
	for i, r := range sc.found {
		if i >= k {
			if lo, _ := sc.codes.interval(r.ID, r.Distance); lo > cut {
				continue
			}
		}
		kept = append(kept, r)
		sc.ids = append(sc.ids, r.ID)
		sc.dists = append(sc.dists, 0)
	}
	sc.found = kept
	sc.q.Distances(sc.ids, sc.dists)
	for i := range sc.found {
		sc.found[i].Distance = sc.dists[i]
	}
}
