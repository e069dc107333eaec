package vector

import (
	"encoding/binary"
	"math/bits"
	"sync/atomic"

	"github.com/google/uuid"
)

// slotTable finds the live slot of a node in a matrix. It is an open
// addressing table with linear probing that stores slots only (4 bytes a
// bucket, at most half full) and compares node ids in the matrix's own
// nodes array, so that it stays small enough for the caches: translating
// a filter of 10,000 ids takes a few tens of microseconds, where a Go map
// from ids costs about ten times that in cache misses.
//
// Searches read the table while its writer inserts (see matrix.snapshot),
// so a bucket is stored and loaded atomically, and nothing in it is ever
// moved or taken out: a search's probe can never stop short at a hole
// that a removal left, or miss a slot that a removal shifted past it. A
// killed slot stays in its bucket until the table is rebuilt (a resize,
// which leaves out the slots dead by then, or a compaction of the
// matrix), so a node may hold several buckets, its dead slots and at most
// one live one; find returns the one live in the caller's set.
type slotTable struct {
	buckets []uint32 // slot+1; 0 is empty
	n       int      // buckets in use
	shift   uint8    // 64 - log2(len(buckets))
}

// home returns the bucket where the search for id starts: a Fibonacci
// hash of its two halves, so that the time prefix of a version 7 UUID
// does not cluster.
func (t *slotTable) home(id uuid.UUID) int {
	h := binary.LittleEndian.Uint64(id[:8]) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(id[8:]), 29)
	return int((h * 0x9e3779b97f4a7c15) >> t.shift)
}

// find returns the slot of id that is a member of live. Slots from
// len(nodes) on, which a writer inserted after the caller's snapshot, are
// passed over.
func (t *slotTable) find(nodes []uuid.UUID, live bitset, id uuid.UUID) (uint32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := len(t.buckets) - 1
	for i := t.home(id); ; i = (i + 1) & mask {
		b := atomic.LoadUint32(&t.buckets[i])
		if b == 0 {
			return 0, false
		}
		if slot := b - 1; int(slot) < len(nodes) && nodes[slot] == id && live.has(slot) {
			return slot, true
		}
	}
}

// insert adds slot. A table that would be more than half full is rebuilt
// first, with the members of live only (live must hold slot).
func (t *slotTable) insert(nodes []uuid.UUID, live bitset, slot uint32) {
	if 2*(t.n+1) > len(t.buckets) {
		t.rebuild(nodes, live)
	}
	t.put(nodes, slot)
}

// put stores slot in the first empty bucket of its probe run.
func (t *slotTable) put(nodes []uuid.UUID, slot uint32) {
	mask := len(t.buckets) - 1
	i := t.home(nodes[slot])
	for t.buckets[i] != 0 {
		i = (i + 1) & mask
	}
	atomic.StoreUint32(&t.buckets[i], slot+1)
	t.n++
}

// rebuild rehashes the members of live into new buckets, at most a quarter
// full, so that the next rebuild is as many inserts away as there are
// members. Searches still reading the old buckets keep them.
func (t *slotTable) rebuild(nodes []uuid.UUID, live bitset) {
	size := 16
	for size < 4*(live.count(uint32(len(nodes)))+1) {
		size *= 2
	}
	t.buckets = make([]uint32, size)
	t.shift = uint8(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
	for slot := range live.from(0) {
		t.put(nodes, slot)
	}
}
