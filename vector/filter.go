package vector

// filterSlots is a filter's ids translated into the live slots of one
// matrix in one state (its id and epoch; the id rather than a pointer, so
// that a Filter kept by its caller keeps no matrix alive): a bitset and
// the number of members.
// Translating costs two random reads per id (the slot table, then the
// node id it points to), a few milliseconds for 50,000 ids, more than the
// search itself; a Filter keeps its latest translation, immutable once
// made, so the searches that reuse it pay once per state of the matrix.
type filterSlots struct {
	mx    uint64 // matrix.id
	epoch uint64
	ids   int // len(Filter.IDs) when translated
	set   bitset
	n     int
}

// filter returns the live slots of mx that hold the vectors of f's ids,
// and their number. mx is a snapshot (matrix.snapshot).
func (mx *matrix) filter(f *Filter) (bitset, int) {
	if c := f.slots.Load(); c != nil && c.mx == mx.id && c.epoch == mx.epoch && c.ids == len(f.IDs) {
		return c.set, c.n
	}
	c := &filterSlots{mx: mx.id, epoch: mx.epoch, ids: len(f.IDs), set: make(bitset, len(mx.live))}
	for _, id := range f.IDs {
		if slot, ok := mx.find(id); ok && !c.set.has(slot) {
			c.set.set(slot)
			c.n++
		}
	}
	f.slots.Store(c)
	return c.set, c.n
}
