package temporal

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// FormatVersion is the first byte of every value this package stores:
// stored values carry a version byte, keys do not (docs/design.md,
// Invariants). A decoder meeting another version fails with ErrCorrupt
// rather than guessing.
const FormatVersion = 1

// Version record value, format version 1. The key already holds the
// logical id, valid start and tx start; the value holds the rest. All
// integers are big-endian; n is an unsigned varint in its shortest form.
//
//	offset  width  field
//	0       1      format version = 1
//	1       1      kind: 0x00 node, 0x01 edge (EntityKind)
//	2       1      flags: bit 0 tombstone; other bits zero
//	3       8      valid end, int64 microseconds (MaxInt64 = open)
//	11      8      tx end, int64 microseconds (MaxInt64 = still known)
//	edges only:
//	19      16     from node id
//	35      16     to node id
//	51      n+len  edge type name, non-empty UTF-8 bytes
//	then:
//	        n      label count, then each label as n+len, non-empty,
//	               strictly ascending
//	        n      property count, then each property as: name n+len
//	               (non-empty, strictly ascending), kind byte, payload:
//	               1 string  n+len bytes
//	               2 int64   8 bytes, two's complement
//	               3 float64 8 bytes, IEEE 754 bits
//	               4 bool    1 byte, 0x00 or 0x01
//	               5 bytes   n+len bytes
//
// The encoding is canonical: DecodeValue accepts exactly the bytes that
// AppendValue produces, so decode-then-encode is the identity (the fuzz
// target checks it). Trailing bytes are an error.
//
// The offsets of the header's fields, as in the table:
const (
	offKind        = 1
	offFlags       = 2
	offValidEnd    = 3
	offTxEnd       = 11
	valueHeaderLen = 19
)

// valueEnds reads the valid end and the tx end out of a version value's
// header, which the caller has checked is whole.
func valueEnds(b []byte) (validEnd, txEnd storage.Timestamp) {
	return storage.Timestamp(binary.BigEndian.Uint64(b[offValidEnd:])), storage.Timestamp(binary.BigEndian.Uint64(b[offTxEnd:]))
}

const flagTombstone = 0x01

// AppendValue appends the stored value of v (everything but the key parts
// ID, Valid.Start and TxStart) to dst. v must hold sorted, distinct,
// non-empty labels and non-empty property names, as the Store guarantees.
func AppendValue(dst []byte, v *Version) []byte {
	var flags byte
	if v.Tombstone {
		flags |= flagTombstone
	}
	dst = append(dst, FormatVersion, byte(v.Kind), flags)
	dst = binary.BigEndian.AppendUint64(dst, uint64(v.Valid.End))
	dst = binary.BigEndian.AppendUint64(dst, uint64(v.TxEnd))
	if v.Kind == EntityEdge {
		dst = append(dst, v.From[:]...)
		dst = append(dst, v.To[:]...)
		dst = appendString(dst, v.Type)
	}
	dst = binary.AppendUvarint(dst, uint64(len(v.Labels)))
	for _, l := range v.Labels {
		dst = appendString(dst, l)
	}
	dst = binary.AppendUvarint(dst, uint64(len(v.Props)))
	for _, name := range sortedNames(v.Props) {
		p := v.Props[name]
		dst = appendString(dst, name)
		dst = append(dst, byte(p.Kind))
		switch p.Kind {
		case KindString:
			dst = appendString(dst, p.Str)
		case KindInt:
			dst = binary.BigEndian.AppendUint64(dst, uint64(p.Int))
		case KindFloat:
			dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(p.Float))
		case KindBool:
			b := byte(0)
			if p.Bool {
				b = 1
			}
			dst = append(dst, b)
		case KindBytes:
			dst = binary.AppendUvarint(dst, uint64(len(p.Bytes)))
			dst = append(dst, p.Bytes...)
		}
	}
	return dst
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// DecodeValue decodes a stored version value. The key parts (ID,
// Valid.Start, TxStart) are left zero for the caller to fill from the key.
// Any input that AppendValue cannot have produced yields an error wrapping
// ErrCorrupt; DecodeValue never panics.
func DecodeValue(b []byte) (Version, error) {
	d := valueDecoder{b: b}
	v, err := d.version()
	if err != nil {
		return Version{}, fmt.Errorf("decode version value at byte %d: %w", d.off, err)
	}
	return v, nil
}

type valueDecoder struct {
	b   []byte
	off int
}

func (d *valueDecoder) version() (Version, error) {
	if len(d.b) < valueHeaderLen {
		return Version{}, fmt.Errorf("%w: %d bytes, want at least %d", ErrCorrupt, len(d.b), valueHeaderLen)
	}
	if d.b[0] != FormatVersion {
		return Version{}, fmt.Errorf("%w: format version %d, want %d", ErrCorrupt, d.b[0], FormatVersion)
	}
	var v Version
	v.Kind = EntityKind(d.b[offKind])
	if !v.Kind.Valid() {
		return Version{}, fmt.Errorf("%w: kind 0x%02x", ErrCorrupt, d.b[offKind])
	}
	flags := d.b[offFlags]
	if flags&^flagTombstone != 0 {
		return Version{}, fmt.Errorf("%w: flags 0x%02x", ErrCorrupt, flags)
	}
	v.Tombstone = flags&flagTombstone != 0
	v.Valid.End, v.TxEnd = valueEnds(d.b)
	d.off = valueHeaderLen
	if v.Kind == EntityEdge {
		var err error
		if v.From, err = d.uuid(); err != nil {
			return Version{}, err
		}
		if v.To, err = d.uuid(); err != nil {
			return Version{}, err
		}
		if v.Type, err = d.name(""); err != nil {
			return Version{}, err
		}
	}
	n, err := d.count()
	if err != nil {
		return Version{}, err
	}
	prev := ""
	for i := 0; i < n; i++ {
		l, err := d.name(prev)
		if err != nil {
			return Version{}, fmt.Errorf("label %d: %w", i, err)
		}
		v.Labels = append(v.Labels, l)
		prev = l
	}
	if n, err = d.count(); err != nil {
		return Version{}, err
	}
	prev = ""
	for i := 0; i < n; i++ {
		name, err := d.name(prev)
		if err != nil {
			return Version{}, fmt.Errorf("property %d: %w", i, err)
		}
		p, err := d.property()
		if err != nil {
			return Version{}, fmt.Errorf("property %q: %w", name, err)
		}
		if v.Props == nil {
			v.Props = make(Properties, n)
		}
		v.Props[name] = p
		prev = name
	}
	if d.off != len(d.b) {
		return Version{}, fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(d.b)-d.off)
	}
	return v, nil
}

func (d *valueDecoder) need(n int) error {
	if n < 0 || len(d.b)-d.off < n {
		return fmt.Errorf("%w: truncated: need %d bytes, have %d", ErrCorrupt, n, len(d.b)-d.off)
	}
	return nil
}

// u64 reads 8 bytes; callers check the length first.
func (d *valueDecoder) u64() uint64 {
	v := binary.BigEndian.Uint64(d.b[d.off:])
	d.off += 8
	return v
}

func (d *valueDecoder) uuid() (uuid.UUID, error) {
	var id uuid.UUID
	if err := d.need(16); err != nil {
		return id, err
	}
	copy(id[:], d.b[d.off:])
	d.off += 16
	return id, nil
}

// uvarint reads a varint in its shortest form.
func (d *valueDecoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		return 0, fmt.Errorf("%w: bad varint", ErrCorrupt)
	}
	if n != len(binary.AppendUvarint(nil, v)) {
		return 0, fmt.Errorf("%w: non-minimal varint", ErrCorrupt)
	}
	d.off += n
	return v, nil
}

// count reads an element count; each element takes at least one byte, so a
// count above the remaining length is corrupt (and cannot force a huge
// allocation).
func (d *valueDecoder) count() (int, error) {
	n, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if n > uint64(len(d.b)-d.off) {
		return 0, fmt.Errorf("%w: count %d exceeds remaining %d bytes", ErrCorrupt, n, len(d.b)-d.off)
	}
	return int(n), nil
}

func (d *valueDecoder) bytes() ([]byte, error) {
	n, err := d.count()
	if err != nil {
		return nil, err
	}
	out := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return out, nil
}

// name reads a non-empty string that sorts strictly after prev.
func (d *valueDecoder) name(prev string) (string, error) {
	b, err := d.bytes()
	if err != nil {
		return "", err
	}
	s := string(b)
	if s == "" {
		return "", fmt.Errorf("%w: empty name", ErrCorrupt)
	}
	if prev != "" && s <= prev {
		return "", fmt.Errorf("%w: %q not after %q", ErrCorrupt, s, prev)
	}
	return s, nil
}

func (d *valueDecoder) property() (Value, error) {
	if err := d.need(1); err != nil {
		return Value{}, err
	}
	kind := ValueKind(d.b[d.off])
	d.off++
	switch kind {
	case KindString:
		b, err := d.bytes()
		return Value{Kind: kind, Str: string(b)}, err
	case KindInt, KindFloat:
		if err := d.need(8); err != nil {
			return Value{}, err
		}
		u := d.u64()
		if kind == KindInt {
			return Int(int64(u)), nil
		}
		return Float(math.Float64frombits(u)), nil
	case KindBool:
		if err := d.need(1); err != nil {
			return Value{}, err
		}
		b := d.b[d.off]
		d.off++
		if b > 1 {
			return Value{}, fmt.Errorf("%w: bool byte 0x%02x", ErrCorrupt, b)
		}
		return Bool(b == 1), nil
	case KindBytes:
		b, err := d.bytes()
		return Bytes(b), err
	}
	return Value{}, fmt.Errorf("%w: value kind 0x%02x", ErrCorrupt, uint8(kind))
}

// Adjacency row value, format version 1: what a neighbour query needs
// without a point lookup of the edge version.
//
//	offset  width  field
//	0       1      format version = 1
//	1       16     edge id
//	17      8      valid end, int64 big-endian
//	25      8      tx end, int64 big-endian
const (
	offAdjacencyEdge     = 1
	offAdjacencyValidEnd = 17
	offAdjacencyTxEnd    = 25
	adjacencyValueLen    = 33
)

// Adjacency is one decoded adjacency row: an edge version seen from one of
// its endpoints.
type Adjacency struct {
	Edge      uuid.UUID
	EdgeType  storage.EdgeTypeHash
	Neighbor  uuid.UUID
	Valid     Interval
	TxStart   storage.Timestamp
	TxEnd     storage.Timestamp
	Direction Direction
}

func appendAdjacencyValue(dst []byte, v *Version) []byte {
	dst = append(dst, FormatVersion)
	dst = append(dst, v.ID[:]...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(v.Valid.End))
	return binary.BigEndian.AppendUint64(dst, uint64(v.TxEnd))
}

// decodeAdjacencyValue fills the value parts of a; it never panics.
func decodeAdjacencyValue(b []byte, a *Adjacency) error {
	if len(b) != adjacencyValueLen || b[0] != FormatVersion {
		return fmt.Errorf("decode adjacency value of %d bytes: %w", len(b), ErrCorrupt)
	}
	copy(a.Edge[:], b[offAdjacencyEdge:offAdjacencyValidEnd])
	a.Valid.End = storage.Timestamp(binary.BigEndian.Uint64(b[offAdjacencyValidEnd:]))
	a.TxEnd = storage.Timestamp(binary.BigEndian.Uint64(b[offAdjacencyTxEnd:]))
	return nil
}
