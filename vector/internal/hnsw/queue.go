package hnsw

import "math"

// item is a node and its distance to the point being searched for, packed
// into one word that orders as the pair does: the distance's bits mapped
// to an unsigned integer of the same order in the high half, the node id
// in the low half. Items order by distance, then by id, a total order that
// makes every search deterministic under ties, and comparing two is one
// integer comparison, which keeps the heaps' sifting (most of a walk's
// time when the vectors are in cache) short. Distances must not be NaN;
// -0 is stored as +0, so that they tie.
type item uint64

func newItem(d float32, id uint32) item {
	b := math.Float32bits(d + 0) // -0 + 0 is +0
	if b&(1<<31) != 0 {
		b = ^b // negative: larger magnitudes first
	} else {
		b |= 1 << 31
	}
	return item(uint64(b)<<32 | uint64(id))
}

// dist returns the distance of it.
func (it item) dist() float32 {
	b := uint32(it >> 32)
	if b&(1<<31) != 0 {
		b &^= 1 << 31
	} else {
		b = ^b
	}
	return math.Float32frombits(b)
}

// node returns the node of it.
func (it item) node() uint32 { return uint32(it) }

func (it item) before(o item) bool { return it < o }

// nearest is a binary min-heap of items: the nearest is at the root.
type nearest []item

func (h nearest) len() int   { return len(h) }
func (h nearest) root() item { return h[0] }

func (h *nearest) push(it item) {
	s := append(*h, it)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if it >= s[p] {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = it
	*h = s
}

func (h *nearest) pop() item {
	s := *h
	top := s[0]
	last := len(s) - 1
	*h = s[:last]
	if last > 0 {
		h.sift(s[last])
	}
	return top
}

// sift replaces the root by it and restores the heap order below it.
func (h nearest) sift(it item) {
	i := 0
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if r := c + 1; r < len(h) && h[r] < h[c] {
			c = r
		}
		if it <= h[c] {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = it
}

// farthest is a max-heap of items: the farthest is at the root. It is a
// nearest heap of complemented items, which reverses the order exactly.
type farthest struct{ h nearest }

func (f *farthest) len() int        { return f.h.len() }
func (f *farthest) root() item      { return ^f.h.root() }
func (f *farthest) push(it item)    { f.h.push(^it) }
func (f *farthest) pop() item       { return ^f.h.pop() }
func (f *farthest) reset()          { f.h = f.h[:0] }
func (f *farthest) full(n int) bool { return f.h.len() >= n }

// replace puts it in place of the farthest, which it must precede.
func (f *farthest) replace(it item) { f.h.sift(^it) }

// drain empties f into dst, nearest first.
func (f *farthest) drain(dst []item) []item {
	n := f.len()
	dst = append(dst, make([]item, n)...)
	for i := len(dst) - 1; i >= len(dst)-n; i-- {
		dst[i] = f.pop()
	}
	return dst
}
