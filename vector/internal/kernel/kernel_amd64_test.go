package kernel

import "testing"

// TestPortablePath runs the tests again on the path that CPUs without
// AVX-512 take, so that both are checked on this one.
func TestPortablePath(t *testing.T) {
	if !hasAVX512 {
		t.Log("this CPU has no AVX-512: the tests above ran the portable path")
	}
	defer func(had bool) { hasAVX512 = had }(hasAVX512)
	hasAVX512 = false
	t.Run("Dots", TestDots)
	t.Run("Cosines", TestCosines)
	t.Run("SquaredL2s", TestSquaredL2s)
	t.Run("Int8Dots", TestInt8Dots)
}
