package vector

import "telha.dev/vector/internal/hnsw"

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
// scaled by ef / DefaultEfSearch (the scan is the cheaper path there: the
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
