package vector

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/vector/internal/hnsw"
	"telha.dev/vector/internal/kernel"
)

// matrix holds the current vectors of one dimension of an index in one
// contiguous float32 array, row by row: the input of the exact scan and
// the points of the approximate graph. A row's place is its slot. Slots
// are appended and never rewritten: a node whose vector changes gets a new
// slot and its old one dies, so the graph, which knows points only by
// slot, never sees a point move. Dead slots are dropped by compaction.
type matrix struct {
	id    uint64 // unique among the matrices of the process (matrixIDs)
	dim   int
	vecs  []float32   // slot i is vecs[i*dim : (i+1)*dim]
	norms []float64   // ‖row‖, as distance computes it
	nodes []uuid.UUID // the node of each slot
	times []version   // the version each slot holds
	live  bitset      // slots that are a node's current vector
	nlive int
	// liveShared says that a snapshot shares live: it is copied before
	// its next change (ownLive).
	liveShared bool
	where      slotTable // the slots of each node, its dead ones too
	// epoch counts the changes of the live slots (add, kill), so that a
	// translation of a filter's ids into slots knows when it is stale.
	epoch uint64
	ann   *ann // the approximate graph; nil until an approximate search asks
}

// version is when a vector row was written: its valid start and tx start.
type version struct {
	valid, tx storage.Timestamp
}

// after reports whether v is later than o in the order of the key: valid
// start first, then tx start.
func (v version) after(o version) bool {
	return v.valid > o.valid || (v.valid == o.valid && v.tx > o.tx)
}

// ann is the approximate graph of a matrix under one metric. It covers
// the slots below graph.Len(); later slots (the tail) are searched
// exactly until the builder has inserted them.
type ann struct {
	metric Metric
	cfg    hnsw.Config
	// build is the graph the builder grows, nil in a snapshot; graph is
	// what searches walk: &build.View in the writer's ann, a snapshot of
	// it in a snapshot's.
	build    *hnsw.Graph
	graph    *hnsw.View
	building bool // a builder goroutine is running
	// Where the kernel takes them faster (quantized), codes and scales
	// hold the int8 copy of the rows the graph holds, which the search
	// walks with (codes.go).
	quantized bool
	codes     []int8
	scales    []float32
}

// add inserts the next slot of mx into the graph, its codes first.
func (a *ann) add(mx *matrix) {
	if a.quantized {
		a.quantize(mx, uint32(a.graph.Len()))
	}
	a.build.Add(space{mx: mx, metric: a.metric})
}

// snapshot returns a as it is now, for a snapshot of its matrix.
func (a *ann) snapshot() *ann {
	s := *a
	s.build, s.graph = nil, a.build.Snapshot()
	return &s
}

// bytes returns the memory a holds.
func (a *ann) bytes() int64 {
	return a.graph.Bytes() + int64(cap(a.codes)) + 4*int64(cap(a.scales))
}

// matrixIDs numbers the matrices of the process.
var matrixIDs atomic.Uint64

func newMatrix(dim int) *matrix { return &matrix{id: matrixIDs.Add(1), dim: dim} }

// snapshot returns mx as it is now, for searches that run while the
// writer goes on changing mx (index.publish): a copy of its headers that
// shares its arrays. What the writer does next leaves the copy's state
// alone. Rows, norms, nodes, times and codes are only appended, past the
// copy's length; the slot table only gains buckets, which the copy's find
// passes over; the graph's links are words read atomically (hnsw.View);
// and live, the one array changed in place, is copied before its next
// change. Must hold the index's lock.
func (mx *matrix) snapshot() *matrix {
	s := *mx
	mx.liveShared = true
	if mx.ann != nil {
		s.ann = mx.ann.snapshot()
	}
	return &s
}

// ownLive makes live the writer's own before a change, if a snapshot
// shares it: a copy of n/8 bytes once per publication that changes it.
func (mx *matrix) ownLive() {
	if mx.liveShared {
		mx.live = append(make(bitset, 0, len(mx.live)+1), mx.live...)
		mx.liveShared = false
	}
}

func (mx *matrix) slots() int { return len(mx.nodes) }

func (mx *matrix) row(slot uint32) []float32 {
	at := int(slot) * mx.dim
	return mx.vecs[at : at+mx.dim : at+mx.dim]
}

// add appends v, written at ver, as the current vector of node, which
// has no live slot.
func (mx *matrix) add(node uuid.UUID, ver version, v []float32) {
	slot := uint32(len(mx.nodes))
	mx.vecs = append(mx.vecs, v...)
	mx.norms = append(mx.norms, norm(v))
	mx.nodes = append(mx.nodes, node)
	mx.times = append(mx.times, ver)
	mx.ownLive()
	mx.live.grow(len(mx.nodes))
	mx.where.insert(mx.nodes, mx.live, slot)
	mx.live.set(slot)
	mx.nlive++
	mx.epoch++
}

// trim gives back the room that appending left at the end of the arrays,
// about a tenth of them once a load is done.
func (mx *matrix) trim() {
	mx.vecs = slices.Clone(mx.vecs)
	mx.norms = slices.Clone(mx.norms)
	mx.nodes = slices.Clone(mx.nodes)
	mx.times = slices.Clone(mx.times)
}

// find returns the live slot of node.
func (mx *matrix) find(node uuid.UUID) (uint32, bool) {
	return mx.where.find(mx.nodes, mx.live, node)
}

// kill marks the live slot as no longer current.
func (mx *matrix) kill(slot uint32) {
	mx.ownLive()
	mx.live.unset(slot)
	mx.nlive--
	mx.epoch++
}

// sparse reports whether dead slots have come to outnumber live ones
// (beyond a floor that keeps small matrices from churning): time to
// compact.
func (mx *matrix) sparse() bool {
	dead := mx.slots() - mx.nlive
	return dead > 1024 && dead > mx.nlive
}

// compacted returns a copy of mx with its live slots only, in slot order,
// and no graph.
func (mx *matrix) compacted() *matrix {
	out := newMatrix(mx.dim)
	out.vecs = make([]float32, 0, mx.nlive*mx.dim)
	out.norms = make([]float64, 0, mx.nlive)
	out.nodes = make([]uuid.UUID, 0, mx.nlive)
	out.times = make([]version, 0, mx.nlive)
	for slot := range mx.live.from(0) {
		out.add(mx.nodes[slot], mx.times[slot], mx.row(slot))
	}
	return out
}

// bytes returns the memory mx holds, its graph included.
func (mx *matrix) bytes() int64 {
	n := 4*int64(cap(mx.vecs)) + 8*int64(cap(mx.norms)) + 16*int64(cap(mx.nodes)) + 16*int64(cap(mx.times)) +
		8*int64(cap(mx.live)) + 4*int64(cap(mx.where.buckets))
	if mx.ann != nil {
		n += mx.ann.bytes()
	}
	return n
}

// exact offers to k every slot of set at or above slot lo. A slot whose
// kernel distance proves it cannot enter k is skipped without computing
// its reference distance (see kernel.go), so the answer is the one a scan
// with the reference alone would give. The slots that the graph's int8
// codes cover under the probe's metric are measured by their codes first
// (exactCodes).
func (mx *matrix) exact(p *probe, k *knn, set bitset, lo uint32) {
	if a := mx.ann; a != nil && a.quantized && a.metric == p.metric && int(lo) < a.graph.Len() {
		lo = mx.exactCodes(p, k, set, lo, uint32(a.graph.Len()))
	}
	for slot := range set.from(lo) {
		mx.consider(p, k, slot)
	}
}

// scanBatch is the number of slots exactCodes measures at a time.
const scanBatch = 64

// exactCodes is exact over the slots of set from lo below hi, which have
// codes: each batch of slots is measured by its codes, and a slot whose
// code interval (codes.go) proves it cannot enter k is skipped without
// reading its row, a quarter of the bytes, so that a scan of a matrix
// larger than the caches waits on a quarter of the memory. It returns hi.
func (mx *matrix) exactCodes(p *probe, k *knn, set bitset, lo, hi uint32) uint32 {
	cq := newCodeQuery(mx, p)
	var ids [scanBatch]uint32
	var dists [scanBatch]float32
	n := 0
	for slot := range set.from(lo) {
		if slot >= hi {
			break
		}
		ids[n] = slot
		if n++; n == scanBatch {
			mx.offerCodes(&cq, k, ids[:n], dists[:n])
			n = 0
		}
	}
	mx.offerCodes(&cq, k, ids[:n], dists[:n])
	return hi
}

// offerCodes offers to k the slots ids that their codes do not exclude.
func (mx *matrix) offerCodes(cq *codeQuery, k *knn, ids []uint32, dists []float32) {
	if len(ids) == 0 {
		return
	}
	cq.Distances(ids, dists)
	for i, id := range ids {
		if k.full() {
			if lo, _ := cq.interval(id, dists[i]); lo > k.worst() {
				continue
			}
		}
		mx.consider(cq.p, k, id)
	}
}

// consider offers slot to k unless its float32 kernel distance proves
// that it cannot enter.
func (mx *matrix) consider(p *probe, k *knn, slot uint32) {
	v := mx.row(slot)
	if k.full() {
		vn := mx.norms[slot]
		if p.floor(p.estimate(v, vn), vn) > k.worst() {
			return
		}
	}
	k.offer(mx.nodes[slot], v)
}

// walkNodes is the number of nodes a walk of mx passes through: its
// graph's, dead slots included, or its live slots before it has one.
func (mx *matrix) walkNodes() int {
	if mx.ann == nil {
		return mx.nlive
	}
	return mx.ann.graph.Len()
}

// approximate offers to k the width nearest slots of set that the graph
// finds, in a sparse walk (hnsw.Filter) or not, then every slot of set in
// the tail, which the graph does not hold yet. Offering computes the
// reference distance, so every hit carries the distance an exact search
// would report for it. A walk that ran dry before finding width allowed
// slots, while the graph holds more, was cut off from them by the filter
// (the allowed slots lie far from the walk's entry): the graph's part is
// then scanned exactly instead.
func (mx *matrix) approximate(p *probe, k *knn, set bitset, sparse bool, width int) {
	g := mx.ann.graph
	tail := uint32(g.Len())
	sc := scratchPool.Get().(*searchScratch)
	defer scratchPool.Put(sc)
	sc.p = *p
	sc.q = walkQuery{mx: mx, p: &sc.p}
	defer func() { sc.q, sc.codes = walkQuery{}, codeQuery{} }()
	var walk hnsw.Query = &sc.q
	if mx.ann.quantized {
		sc.codes = newCodeQuery(mx, &sc.p)
		walk = &sc.codes
	}
	f := hnsw.Filter{Allowed: set, Dense: !sparse}
	sc.found = g.SearchQuery(walk, width, width, f, sc.found[:0])
	if len(sc.found) < width && len(sc.found) < set.count(tail) {
		mx.exact(p, k, set, 0)
		return
	}
	if mx.ann.quantized {
		sc.remeasure(k.k)
	}
	sc.touchNodes(mx)
	for _, r := range sc.found {
		// r.Distance is the float32 kernel's (or, where that bounds
		// nothing, the reference's): a candidate that provably cannot
		// enter k is not measured again, so that only about k of the ef
		// are.
		if k.full() && p.floor(lowerBound(r.Distance), mx.norms[r.ID]) > k.worst() {
			continue
		}
		k.offer(mx.nodes[r.ID], mx.row(r.ID))
	}
	mx.exact(p, k, set, tail)
}

// searchScratch is what one approximate search needs besides the graph's
// own scratch, pooled so that a search allocates nothing for it.
type searchScratch struct {
	// The probe, copied here so that the walk's references to it do not
	// move the caller's to the heap.
	p     probe
	q     walkQuery
	codes codeQuery
	found []hnsw.Result
	ids   []uint32
	dists []float32
	touch byte // what touchNodes read, kept so that its loads stay
}

// touchNodes reads the node of every found slot, a random read of
// mx.nodes each, in a loop of nothing else: the reads do not wait on each
// other, so their misses overlap, where the loop that offers the
// candidates, a reference distance between each two reads, would wait on
// each in turn (3 to 9% more queries a second, BENCHMARKS.md).
func (sc *searchScratch) touchNodes(mx *matrix) {
	var b byte
	for _, r := range sc.found {
		b |= mx.nodes[r.ID][0]
	}
	sc.touch = b
}

var scratchPool = sync.Pool{New: func() any { return new(searchScratch) }}

// walkQuery measures slots of a matrix from a probe, for the graph walk.
type walkQuery struct {
	mx *matrix
	p  *probe
}

// Distances implements hnsw.Query. The kernel takes the whole batch, so
// that it can prefetch the rows ahead of the one it computes (a random
// row of a large matrix is a miss of every cache, and the walk would wait
// for each in turn); the metric is switched on once per call, and a
// distance that the float32 kernel cannot give (it overflowed, on vectors
// near math.MaxFloat32) is the reference's.
func (q *walkQuery) Distances(ids []uint32, out []float32) {
	mx, p := q.mx, q.p
	out = out[:len(ids)]
	switch p.metric {
	case Cosine:
		kernel.Cosines(p.q, mx.vecs, mx.norms, p.qnorm, ids, out)
		for i, id := range ids {
			out[i] = q.finite(float64(out[i]), id)
		}
	case Dot:
		kernel.Dots(p.q, mx.vecs, ids, out)
		for i, id := range ids {
			out[i] = q.finite(-float64(out[i]), id)
		}
	default: // L2
		kernel.SquaredL2s(p.q, mx.vecs, ids, out)
		for i, id := range ids {
			out[i] = q.finite(math.Sqrt(float64(out[i])), id)
		}
	}
}

// finite returns d, the kernel's distance of slot id, or the reference
// distance if d is NaN or infinite.
func (q *walkQuery) finite(d float64, id uint32) float32 {
	if d-d != 0 {
		d = distance(q.p.metric, q.p.q, q.mx.row(id), q.p.qnorm)
	}
	return float32(d)
}

// space measures the distance between two slots of a matrix with the
// float32 kernels, for building the graph.
type space struct {
	mx     *matrix
	metric Metric
}

func (s space) Distance(a, b uint32) float32 {
	return float32(kernelDistance(s.metric, s.mx.row(a), s.mx.row(b), s.mx.norms[a], s.mx.norms[b]))
}

// From implements hnsw.QuerySpace: the walk that links slot a in
// measures from it as a search does, in batches. The probe takes a's
// stored norm, so every distance is the one Distance(a, ·) gives.
func (s space) From(a uint32) hnsw.Query {
	p := &probe{metric: s.metric, q: s.mx.row(a), qnorm: s.mx.norms[a]}
	return &walkQuery{mx: s.mx, p: p}
}
