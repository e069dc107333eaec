package hnsw

// visited marks the nodes one walk has reached. Marks are generation
// stamps, so starting a walk costs nothing but a counter increment; the
// array is cleared only when the counter wraps.
type visited struct {
	gen   uint16
	marks []uint16
}

// reset starts a walk over n nodes.
func (v *visited) reset(n int) {
	if len(v.marks) < n {
		v.marks = make([]uint16, n+n/4)
		v.gen = 0
	}
	v.gen++
	if v.gen == 0 {
		clear(v.marks)
		v.gen = 1
	}
}

// visit marks id and reports whether it was unmarked.
func (v *visited) visit(id uint32) bool {
	if v.marks[id] == v.gen {
		return false
	}
	v.marks[id] = v.gen
	return true
}
