package vector

import (
	"math"

	"telha.dev/vector/internal/hnsw"
)

// An approximate search chooses its path from the number of vectors it may
// return (the filter's, or the whole matrix's), as Qdrant's and pgvector's
// planners do, so that a filtered query meets its recall at the speed of
// the cheaper path:
//
//   - The exact scan measures every allowed vector once, in slot order:
//     its cost grows with the number allowed, and its recall is 1.
//   - The walk measures about as many vectors as its width ef times a
//     small factor, each a random read of the matrix (a cache miss that the
//     scan's sequential reads do not pay): its cost grows with ef, not with
//     the number allowed. With a filter it measures allowed vectors only and
//     reaches them through two hops (see hnsw's searchLevel), which keeps the
//     allowed vectors connected down to about one in 2M: below that the walk
//     loses them, and its recall with them.
//
// So the scan is chosen when fewer vectors are allowed than ExactBelow
// scaled by the walk's width (walkWidth) / DefaultEfSearch (the scan is the cheaper path there: the
// crossover of BenchmarkKNNSelectivity is 5,000 at ef = 64, about 80 per
// unit of ef), or when the filter allows fewer than one vector in 2M of
// the live ones (the walk's recall would fall: BenchmarkPeer's 1% filter).
//
// A walk with a filter that allows a quarter of the graph's nodes or more
// (dead slots count as nodes: the walk passes through them too) is dense
// (hnsw.Filter.Dense): it measures every neighbour and skips rejected
// ones in its answer only, which at 50% reaches recall 0.99 at about 1.9
// times the rate of the sparse walk, and at 10% at 0.9 of it
// (BenchmarkPeer, clustered).

// scans reports whether an approximate search that may return allowed of
// the live vectors, at width ef, scans them exactly instead of walking the
// graph.
func (o *Options) scans(allowed, live, ef int) bool {
	if o.ExactBelow < 0 {
		return false
	}
	if allowed*DefaultEfSearch < o.ExactBelow*ef {
		return true
	}
	m := o.M
	if m <= 0 {
		m = hnsw.DefaultM
	}
	return allowed*2*m < live
}

// dense reports whether a walk that may return allowed of the graph's
// nodes treats its filter as dense (hnsw.Filter.Dense).
func dense(allowed, nodes int) bool { return 4*allowed >= nodes }

// walkWidth returns how many nodes a walk keeps for a search of k at
// width ef that may return allowed of the graph's nodes, filtered or not,
// on int8 codes (quantized) or not, so that a filtered walk finds at least
// as many of the true nearest as hnswlib's filtered search at the same ef
// (BenchmarkPeer at 5%, 10%, 20% and 50%, clustered and uniform):
//
//   - A sparse walk measures allowed nodes only, so it knows less of the
//     graph around the query than a walk that measures every neighbour
//     (hnswlib's, and the dense walk), and at the same width finds fewer
//     of the nearest: at a 10% filter, .971 of them at width 10 on
//     clustered data, where hnswlib finds .996. It is 2.5 times wider, and
//     a quarter of nodes/allowed times where that is more: hnswlib's walk
//     keeps ef allowed nodes but explores all the nodes between them,
//     about ef·nodes/allowed, so its recall at an ef grows as the filter
//     narrows, and the sparse walk's must keep up (at 5%, 60 wide at ef
//     10).
//   - A filtered walk on int8 codes keeps k more. The walk orders its
//     nodes by the codes' distances, and the exact re-ranking of its
//     answer (searchScratch.remeasure) corrects their errors only where
//     it has more than k to choose from; a dense walk at a 10% filter
//     finds .986 of the nearest at width 10 with codes, .996 without.
//
// An unfiltered walk on a graph with few dead nodes is ef wide. A width past the graph's nodes is cut to them (the walk cannot keep
// more), which keeps the arithmetic in range for any k.
func walkWidth(ef, k, allowed, nodes int, filtered, quantized bool) int {
	width := ef
	if !dense(allowed, nodes) {
		widen := max(2.5, float64(nodes)/(4*float64(max(allowed, 1))))
		width = int(min(math.Ceil(float64(ef)*widen), float64(nodes)))
	}
	if filtered && quantized {
		width = min(width, nodes) + min(k, nodes)
	}
	return width
}
