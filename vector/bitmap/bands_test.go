package bitmap

import (
	"math"
	"testing"

	"pgregory.net/rapid"

	"telha.dev/core/storage"
	"telha.dev/temporal"
)

func TestBand(t *testing.T) {
	tests := []struct {
		x    float64
		want uint8
	}{
		{math.Inf(-1), 0}, {-1e13, 0}, {-1e12, 1}, {-1e6 - 1, 1}, {-1e6, 2}, {-1e4, 3}, {-1e3, 4},
		{-100, 5}, {-10, 6}, {-0.5, 6}, {0, 7}, {math.Copysign(0, -1), 7}, {9.99, 7}, {10, 8},
		{100, 9}, {1e3, 10}, {1e4, 11}, {1e5, 12}, {1e6, 13}, {1e9 - 1, 13}, {1e9, 14},
		{1e12, 15}, {math.Inf(1), 15}, {math.MaxFloat64, 15},
	}
	for _, tt := range tests {
		if got, ok := band(tt.x); !ok || got != tt.want {
			t.Errorf("band(%g) = %d, %t; want %d", tt.x, got, ok, tt.want)
		}
	}
	if _, ok := band(math.NaN()); ok {
		t.Error("NaN has a band")
	}
}

// TestBandMonotonic: x <= y implies band(x) <= band(y), for ints through
// their float64 conversion too.
func TestBandMonotonic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := rapid.Int64().Draw(t, "a"), rapid.Int64().Draw(t, "b")
		if a > b {
			a, b = b, a
		}
		ba, _ := band(float64(a))
		bb, _ := band(float64(b))
		if ba > bb {
			t.Fatalf("band(%d) = %d > band(%d) = %d", a, ba, b, bb)
		}
		x, y := rapid.Float64().Draw(t, "x"), rapid.Float64().Draw(t, "y")
		if x > y {
			x, y = y, x
		}
		bx, _ := band(x)
		by, _ := band(y)
		if bx > by {
			t.Fatalf("band(%g) = %d > band(%g) = %d", x, bx, y, by)
		}
	})
}

// TestBucketsDistinct: band buckets never equal the equality buckets of
// small values, and different kinds of "the same" value get different
// buckets.
func TestBucketsDistinct(t *testing.T) {
	seen := map[storage.BucketHash]string{}
	add := func(h storage.BucketHash, what string) {
		if prev, ok := seen[h]; ok {
			t.Errorf("bucket of %s equals bucket of %s", what, prev)
		}
		seen[h] = what
	}
	for h := range bandBuckets {
		add(h, "a band")
	}
	if len(bandBuckets) != 2*Bands {
		t.Fatalf("%d band buckets, want %d", len(bandBuckets), 2*Bands)
	}
	add(equalBucket(temporal.Int(1)), "int 1")
	add(equalBucket(temporal.Float(1)), "float 1")
	add(equalBucket(temporal.String("1")), "string 1")
	add(equalBucket(temporal.Bytes([]byte("1"))), "bytes 1")
	add(equalBucket(temporal.Bool(true)), "true")
	add(equalBucket(temporal.Bool(false)), "false")
}
