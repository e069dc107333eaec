package vector

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Value format of a vectors row, version 1:
//
//	[0x01 version][flags 1][dimension 4, big-endian][dimension × float32]
//
// Components are IEEE-754 float32 bits, little-endian, so that decoding is a
// plain load on the machines we run on. Flag bit 0 marks a tombstone, which
// has dimension 0 and no components; the other flag bits must be zero, so a
// later format can use them without being misread by this one.

const (
	valueVersion   = 1
	valueHeaderLen = 1 + 1 + 4
	flagTombstone  = 1 << 0
)

// encodeValue renders the value of a live vector.
func encodeValue(v []float32) []byte {
	b := make([]byte, valueHeaderLen+4*len(v))
	b[0] = valueVersion
	binary.BigEndian.PutUint32(b[2:6], uint32(len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[valueHeaderLen+4*i:], math.Float32bits(x))
	}
	return b
}

// encodeTombstone renders the value of a tombstone.
func encodeTombstone() []byte { return []byte{valueVersion, flagTombstone, 0, 0, 0, 0} }

// decodeValue parses a value into dst (reused when large enough) and
// reports whether it is a tombstone. It never panics; malformed input
// yields ErrBadValue.
func decodeValue(dst []float32, b []byte) (v []float32, tombstone bool, err error) {
	if len(b) < valueHeaderLen {
		return nil, false, fmt.Errorf("%w: %d bytes, want at least %d", ErrBadValue, len(b), valueHeaderLen)
	}
	if b[0] != valueVersion {
		return nil, false, fmt.Errorf("%w: version %d", ErrBadValue, b[0])
	}
	flags := b[1]
	if flags&^flagTombstone != 0 {
		return nil, false, fmt.Errorf("%w: unknown flags 0x%02x", ErrBadValue, flags)
	}
	n := binary.BigEndian.Uint32(b[2:6])
	if uint64(len(b)) != valueHeaderLen+4*uint64(n) {
		return nil, false, fmt.Errorf("%w: %d bytes for dimension %d", ErrBadValue, len(b), n)
	}
	if flags&flagTombstone != 0 {
		if n != 0 {
			return nil, false, fmt.Errorf("%w: tombstone with dimension %d", ErrBadValue, n)
		}
		return nil, true, nil
	}
	if n == 0 {
		return nil, false, fmt.Errorf("%w: live vector of dimension 0", ErrBadValue)
	}
	if cap(dst) < int(n) {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[valueHeaderLen+4*i:]))
	}
	return dst, false, nil
}
