package storage

import "testing"

// The tests of the authority use its restricted surface freely.
func TestSystemKey(t *testing.T) {
	k := SystemScope{}.JobKey(0, 1, 2, [16]byte{})
	r, _ := FromStoredBounds(Jobs, k.View(), nil)
	lower, _ := r.Bounds()
	if string(lower) != string(k.b) || SystemPrefix != [32]byte{} {
		t.Fatal("bounds")
	}
	_ = Key{cf: Edges}
}
