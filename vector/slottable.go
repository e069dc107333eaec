package vector

import (
	"encoding/binary"
	"math/bits"

	"github.com/google/uuid"
)

// slotTable finds the live slot of a node in a matrix. It is an open
// addressing table with linear probing that stores slots only (4 bytes a
// bucket, at most half full) and compares node ids in the matrix's own
// nodes array, so that it stays small enough for the caches: translating
// a filter of 10,000 ids takes a few tens of microseconds, where a Go map
// from ids costs about ten times that in cache misses.
type slotTable struct {
	buckets []uint32 // slot+1; 0 is empty
	n       int
	shift   uint8 // 64 - log2(len(buckets))
}

// home returns the bucket where the search for id starts: a Fibonacci
// hash of its two halves, so that the time prefix of a version 7 UUID
// does not cluster.
func (t *slotTable) home(id uuid.UUID) int {
	h := binary.LittleEndian.Uint64(id[:8]) ^ bits.RotateLeft64(binary.LittleEndian.Uint64(id[8:]), 29)
	return int((h * 0x9e3779b97f4a7c15) >> t.shift)
}

// find returns the slot of id.
func (t *slotTable) find(nodes []uuid.UUID, id uuid.UUID) (uint32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := len(t.buckets) - 1
	for i := t.home(id); ; i = (i + 1) & mask {
		b := t.buckets[i]
		if b == 0 {
			return 0, false
		}
		if nodes[b-1] == id {
			return b - 1, true
		}
	}
}

// insert adds slot, whose node nodes[slot] is not in the table.
func (t *slotTable) insert(nodes []uuid.UUID, slot uint32) {
	if 2*(t.n+1) > len(t.buckets) {
		t.resize(nodes, max(16, 2*len(t.buckets)))
	}
	mask := len(t.buckets) - 1
	i := t.home(nodes[slot])
	for t.buckets[i] != 0 {
		i = (i + 1) & mask
	}
	t.buckets[i] = slot + 1
	t.n++
}

// remove takes slot out of the table, shifting later members of its probe
// run back so that no search stops short at the hole.
func (t *slotTable) remove(nodes []uuid.UUID, slot uint32) {
	mask := len(t.buckets) - 1
	i := t.home(nodes[slot])
	for t.buckets[i] != slot+1 {
		if t.buckets[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	for j := i; ; {
		j = (j + 1) & mask
		b := t.buckets[j]
		if b == 0 {
			break
		}
		// b stays if its home lies cyclically in (i, j].
		k := t.home(nodes[b-1])
		if (i < j && i < k && k <= j) || (i > j && (i < k || k <= j)) {
			continue
		}
		t.buckets[i] = b
		i = j
	}
	t.buckets[i] = 0
	t.n--
}

// resize rehashes the table into size buckets, a power of two.
func (t *slotTable) resize(nodes []uuid.UUID, size int) {
	old := t.buckets
	t.buckets = make([]uint32, size)
	t.shift = uint8(64 - bits.TrailingZeros(uint(size)))
	t.n = 0
	for _, b := range old {
		if b != 0 {
			t.insert(nodes, b-1)
		}
	}
}
