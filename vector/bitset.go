package vector

import (
	"iter"
	"math/bits"
)

// bitset is a set of slots of a matrix.
type bitset []uint64

// grow makes room for slots below n.
func (b *bitset) grow(n int) {
	if need := (n + 63) / 64; need > len(*b) {
		*b = append(*b, make([]uint64, need-len(*b))...)
	}
}

func (b bitset) has(i uint32) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) set(i uint32)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) unset(i uint32)    { b[i/64] &^= 1 << (i % 64) }

// from yields the members at or above slot lo, in ascending order.
func (b bitset) from(lo uint32) iter.Seq[uint32] {
	return func(yield func(uint32) bool) {
		for w := int(lo / 64); w < len(b); w++ {
			word := b[w]
			if w == int(lo/64) {
				word &^= 1<<(lo%64) - 1
			}
			for word != 0 {
				if !yield(uint32(w*64 + bits.TrailingZeros64(word))) {
					return
				}
				word &= word - 1
			}
		}
	}
}

// count returns the number of members below slot hi.
func (b bitset) count(hi uint32) int {
	n := 0
	for w := 0; w < int(hi/64) && w < len(b); w++ {
		n += bits.OnesCount64(b[w])
	}
	if w := int(hi / 64); w < len(b) {
		n += bits.OnesCount64(b[w] & (1<<(hi%64) - 1))
	}
	return n
}
