package bitmap

import (
	"encoding/binary"
	"math"

	"telha.dev/core/storage"
	"telha.dev/temporal"
)

// Bands is the number of range bands per numeric kind.
const Bands = 16

// boundaries are the lower bounds of bands 1..15; see the package doc.
// They are part of the stored format: changing them needs a reindex.
var boundaries = [Bands - 1]float64{-1e12, -1e6, -1e4, -1e3, -100, -10, 0, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e9, 1e12}

// bandTag starts the encoding of a band bucket; it is not a value kind.
const bandTag = 0xB0

// band returns the band of x, and false for NaN, which has none.
func band(x float64) (uint8, bool) {
	if math.IsNaN(x) {
		return 0, false
	}
	var b uint8
	for _, bound := range boundaries {
		if x < bound {
			break
		}
		b++
	}
	return b, true
}

// numeric reports whether values of kind k have range bands.
func numeric(k temporal.ValueKind) bool { return k == temporal.KindInt || k == temporal.KindFloat }

// asFloat returns the number of a numeric value, for banding.
func asFloat(v temporal.Value) float64 {
	if v.Kind == temporal.KindInt {
		return float64(v.Int)
	}
	return v.Float
}

// bandBucket returns the bucket hash of band b of numeric kind k.
func bandBucket(k temporal.ValueKind, b uint8) storage.BucketHash {
	return storage.HashBucket([]byte{bandTag, uint8(k), b})
}

// bandBuckets is the set of the 32 band bucket hashes.
var bandBuckets = func() map[storage.BucketHash]bool {
	m := make(map[storage.BucketHash]bool, 2*Bands)
	for _, k := range [...]temporal.ValueKind{temporal.KindInt, temporal.KindFloat} {
		for b := range uint8(Bands) {
			m[bandBucket(k, b)] = true
		}
	}
	return m
}()

// equalBucket returns the equality bucket hash of v.
func equalBucket(v temporal.Value) storage.BucketHash {
	var buf [9]byte
	buf[0] = uint8(v.Kind)
	switch v.Kind {
	case temporal.KindInt:
		binary.BigEndian.PutUint64(buf[1:], uint64(v.Int))
		return storage.HashBucket(buf[:9])
	case temporal.KindFloat:
		binary.BigEndian.PutUint64(buf[1:], math.Float64bits(v.Float))
		return storage.HashBucket(buf[:9])
	case temporal.KindBool:
		if v.Bool {
			buf[1] = 1
		}
		return storage.HashBucket(buf[:2])
	case temporal.KindBytes:
		return storage.HashBucket(append(buf[:1:1], v.Bytes...))
	default: // KindString
		return storage.HashBucket(append(buf[:1:1], v.Str...))
	}
}
