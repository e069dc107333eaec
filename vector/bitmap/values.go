package bitmap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/temporal"
)

// Value formats of the bitmap_index rows. Every value starts with the
// version byte 0x01; integers are big-endian.
//
//	alloc        [0x01][next row id 4]
//	id map       [0x01][logical id 16]
//	rev map      [0x01][row id 4][n 2] n × [property hash 8][kind 1][payload 8]
//	             entries sorted by property hash, no repeats; the payload is
//	             the int64 or the float64 bits of a numeric value, else the
//	             value's equality bucket hash
//	posting      [0x01][roaring portable serialization], never empty
//	prop counter [0x01][count 4], Overflow = 0xFFFFFFFF

const valueVersion = 1

// Overflow is the prop counter value of a property past the distinct cap.
const Overflow = math.MaxUint32

// ErrBadValue reports a stored index value that does not decode.
var ErrBadValue = errors.New("bad bitmap index value")

func versioned(b []byte, what string) ([]byte, error) {
	if len(b) == 0 || b[0] != valueVersion {
		return nil, fmt.Errorf("%w: %s: missing or unknown version", ErrBadValue, what)
	}
	return b[1:], nil
}

func encodeU32(v uint32) []byte {
	b := []byte{valueVersion, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], v)
	return b
}

func decodeU32(b []byte, what string) (uint32, error) {
	p, err := versioned(b, what)
	if err != nil {
		return 0, err
	}
	if len(p) != 4 {
		return 0, fmt.Errorf("%w: %s of %d bytes", ErrBadValue, what, len(b))
	}
	return binary.BigEndian.Uint32(p), nil
}

// The alloc and prop counter rows are one u32 each.
func encodeAlloc(next uint32) []byte         { return encodeU32(next) }
func decodeAlloc(b []byte) (uint32, error)   { return decodeU32(b, "alloc") }
func encodeCounter(count uint32) []byte      { return encodeU32(count) }
func decodeCounter(b []byte) (uint32, error) { return decodeU32(b, "prop counter") }
func encodeIDMap(id uuid.UUID) []byte        { return append([]byte{valueVersion}, id[:]...) }

func decodeIDMap(b []byte) (uuid.UUID, error) {
	p, err := versioned(b, "id map")
	if err != nil {
		return uuid.Nil, err
	}
	if len(p) != 16 {
		return uuid.Nil, fmt.Errorf("%w: id map of %d bytes", ErrBadValue, len(b))
	}
	id := uuid.UUID(p)
	if id == uuid.Nil {
		return uuid.Nil, fmt.Errorf("%w: id map holds the nil id", ErrBadValue)
	}
	return id, nil
}

// entry is one indexed property value of a node, as kept in its rev map.
type entry struct {
	prop    storage.PropertyHash
	kind    temporal.ValueKind
	payload uint64
}

func entryOf(prop storage.PropertyHash, v temporal.Value) entry {
	e := entry{prop: prop, kind: v.Kind}
	switch v.Kind {
	case temporal.KindInt:
		e.payload = uint64(v.Int)
	case temporal.KindFloat:
		e.payload = math.Float64bits(v.Float)
	default:
		e.payload = uint64(equalBucket(v))
	}
	return e
}

// value returns the numeric value of a numeric entry.
func (e entry) value() temporal.Value {
	if e.kind == temporal.KindInt {
		return temporal.Int(int64(e.payload))
	}
	return temporal.Float(math.Float64frombits(e.payload))
}

// equalBucket returns the entry's equality bucket.
func (e entry) equalBucket() storage.BucketHash {
	if numeric(e.kind) {
		return equalBucket(e.value())
	}
	return storage.BucketHash(e.payload)
}

// bandBucket returns the entry's band bucket, if it has one.
func (e entry) bandBucket() (storage.BucketHash, bool) {
	if !numeric(e.kind) {
		return 0, false
	}
	b, ok := band(asFloat(e.value()))
	if !ok {
		return 0, false
	}
	return bandBucket(e.kind, b), true
}

// revMap is a decoded rev map row.
type revMap struct {
	row     uint32
	entries []entry // sorted by prop
}

const entryLen = 8 + 1 + 8

func encodeRevMap(r revMap) []byte {
	b := make([]byte, 7, 7+entryLen*len(r.entries))
	b[0] = valueVersion
	binary.BigEndian.PutUint32(b[1:5], r.row)
	binary.BigEndian.PutUint16(b[5:7], uint16(len(r.entries)))
	for _, e := range r.entries {
		b = binary.BigEndian.AppendUint64(b, uint64(e.prop))
		b = append(b, uint8(e.kind))
		b = binary.BigEndian.AppendUint64(b, e.payload)
	}
	return b
}

func decodeRevMap(b []byte) (revMap, error) {
	p, err := versioned(b, "rev map")
	if err != nil {
		return revMap{}, err
	}
	if len(p) < 6 {
		return revMap{}, fmt.Errorf("%w: rev map of %d bytes", ErrBadValue, len(b))
	}
	r := revMap{row: binary.BigEndian.Uint32(p[0:4])}
	n := int(binary.BigEndian.Uint16(p[4:6]))
	p = p[6:]
	if len(p) != n*entryLen {
		return revMap{}, fmt.Errorf("%w: rev map of %d bytes for %d entries", ErrBadValue, len(b), n)
	}
	r.entries = make([]entry, n)
	for i := range r.entries {
		e := entry{
			prop:    storage.PropertyHash(binary.BigEndian.Uint64(p[0:8])),
			kind:    temporal.ValueKind(p[8]),
			payload: binary.BigEndian.Uint64(p[9:17]),
		}
		if e.kind < temporal.KindString || e.kind > temporal.KindBytes {
			return revMap{}, fmt.Errorf("%w: rev map entry %d of kind %d", ErrBadValue, i, e.kind)
		}
		if i > 0 && r.entries[i-1].prop >= e.prop {
			return revMap{}, fmt.Errorf("%w: rev map entries out of order at %d", ErrBadValue, i)
		}
		r.entries[i] = e
		p = p[entryLen:]
	}
	return r, nil
}

func encodePosting(bm *roaring.Bitmap) ([]byte, error) {
	bm.RunOptimize()
	body, err := bm.ToBytes()
	if err != nil {
		return nil, fmt.Errorf("encode posting: %w", err)
	}
	return append([]byte{valueVersion}, body...), nil
}

func decodePosting(b []byte) (*roaring.Bitmap, error) {
	p, err := versioned(b, "posting")
	if err != nil {
		return nil, err
	}
	bm := roaring.New()
	n, err := bm.FromBuffer(p)
	if err != nil {
		return nil, fmt.Errorf("%w: posting: %w", ErrBadValue, err)
	}
	if int(n) != len(p) {
		return nil, fmt.Errorf("%w: posting: %d trailing bytes", ErrBadValue, len(p)-int(n))
	}
	if err := bm.Validate(); err != nil {
		return nil, fmt.Errorf("%w: posting: %w", ErrBadValue, err)
	}
	if bm.IsEmpty() {
		return nil, fmt.Errorf("%w: empty posting", ErrBadValue)
	}
	// FromBuffer aliases p; clone so the bitmap owns its memory.
	return bm.Clone(), nil
}
