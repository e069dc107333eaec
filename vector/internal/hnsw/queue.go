package hnsw

// item is a node and its distance to the point being searched for, 8
// bytes, so that a heap of them stays in a few cache lines. Items order by
// distance, then by id, a total order that makes every search
// deterministic under ties.
type item struct {
	d  float32
	id uint32
}

func (a item) before(b item) bool { return a.d < b.d || (a.d == b.d && a.id < b.id) }

// nearest is a binary min-heap of items: the nearest is at the root.
type nearest []item

func (h nearest) len() int   { return len(h) }
func (h nearest) root() item { return h[0] }

func (h *nearest) push(it item) {
	s := append(*h, it)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !it.before(s[p]) {
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
	it := s[last]
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		c := l
		if r := l + 1; r < len(s) && s[r].before(s[l]) {
			c = r
		}
		if !s[c].before(it) {
			break
		}
		s[i] = s[c]
		i = c
	}
	if len(s) > 0 {
		s[i] = it
	}
	*h = s
	return top
}

// farthest is a max-heap of items: the farthest is at the root. It is a
// nearest heap of mirrored items (distance negated, id complemented), which
// reverses the order exactly, ties included.
type farthest struct{ h nearest }

func mirror(it item) item { return item{d: -it.d, id: ^it.id} }

func (f *farthest) len() int        { return f.h.len() }
func (f *farthest) root() item      { return mirror(f.h.root()) }
func (f *farthest) push(it item)    { f.h.push(mirror(it)) }
func (f *farthest) pop() item       { return mirror(f.h.pop()) }
func (f *farthest) reset()          { f.h = f.h[:0] }
func (f *farthest) full(n int) bool { return f.h.len() >= n }

// drain empties f into dst, nearest first.
func (f *farthest) drain(dst []item) []item {
	n := f.len()
	dst = append(dst, make([]item, n)...)
	for i := len(dst) - 1; i >= len(dst)-n; i-- {
		dst[i] = f.pop()
	}
	return dst
}
