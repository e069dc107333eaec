package storage

import (
	"bytes"
	"encoding/binary"

	"github.com/google/uuid"
)

// encoder writes, into a scratch Key, the leading components that a range's
// bounds are built from, left to right, as a chain of calls:
// startPrefix(&k, cf, s).id(id).prefixRange(). The key setters write fixed
// offsets instead, so that they inline.
type encoder struct {
	k      *Key
	n      int
	valid  bool
	system bool
}

// startPrefix begins, in k, a prefix of family cf in scope s by writing the
// scope.
func startPrefix(k *Key, cf ColumnFamily, s TenantScope) encoder {
	k.family = cf
	copy(k.b[:], s.p[:])
	return encoder{k: k, n: ScopeLen, valid: !s.IsZero()}
}

// startSystemPrefix begins, in k, a prefix of family cf under the all-zero
// prefix of the system scope.
func startSystemPrefix(k *Key, cf ColumnFamily) encoder {
	k.family = cf
	clear(k.b[0:ScopeLen])
	return encoder{k: k, n: ScopeLen, valid: true, system: true}
}

func (e encoder) id(id uuid.UUID) encoder {
	*(*uuid.UUID)(e.k.b[e.n : e.n+16]) = id
	e.n += 16
	return e
}

func (e encoder) u8(v uint8) encoder {
	e.k.b[e.n] = v
	e.n++
	return e
}

func (e encoder) u64(v uint64) encoder {
	binary.BigEndian.PutUint64(e.k.b[e.n:e.n+8], v)
	e.n += 8
	return e
}

// inv writes a timestamp inverted (latest first).
func (e encoder) inv(t Timestamp) encoder { return e.u64(inverted(t)) }

// bytes returns what has been written so far, or nil if the prefix was
// started in the zero scope: its bytes never leave the encoder.
func (e encoder) bytes() []byte {
	if !e.valid {
		return nil
	}
	return e.k.b[:e.n]
}

// prefixRange is [p, successor(p)) for the bytes p written so far: every
// key that starts with p. It allocates once: both bounds share a buffer.
// For a prefix started in the zero scope it is the invalid range, so that a
// constructor that forgets to check the scope still fails closed.
func (e encoder) prefixRange() ScanRange {
	if !e.valid {
		return ScanRange{}
	}
	p := e.bytes()
	buf := make([]byte, len(p), 2*len(p))
	copy(buf, p)
	lower := buf[:len(p):len(p)]
	upper, ok := successor(buf[len(p):len(p)], p)
	if !ok {
		upper = nil
	}
	return ScanRange{family: e.k.family, lower: lower, upper: upper, system: e.system}
}

// fromRange is [p, successor(scope)): every key of the scope from the bytes
// p written so far on; the invalid range for the zero scope.
func (e encoder) fromRange() ScanRange {
	if !e.valid {
		return ScanRange{}
	}
	p := e.bytes()
	buf := make([]byte, len(p), len(p)+ScopeLen)
	copy(buf, p)
	lower := buf[:len(p):len(p)]
	upper, ok := successor(buf[len(p):len(p)], p[:ScopeLen])
	if !ok {
		upper = nil
	}
	return ScanRange{family: e.k.family, lower: lower, upper: upper, system: e.system}
}

// between is [lo, successor(hi)): from lo's bytes through every key starting
// with hi's. Both must start with the same scope; ErrInvalidRange if either
// was started in the zero scope.
func between(lo, hi encoder) (ScanRange, error) {
	if !lo.valid || !hi.valid {
		return ScanRange{}, ErrInvalidRange
	}
	l, h := lo.bytes(), hi.bytes()
	buf := make([]byte, len(l), len(l)+len(h))
	copy(buf, l)
	lower := buf[:len(l):len(l)]
	upper, ok := successor(buf[len(l):len(l)], h)
	if !ok {
		upper = nil
	}
	if upper != nil && bytes.Compare(lower, upper) >= 0 {
		return ScanRange{}, ErrEmptyRange
	}
	return ScanRange{family: lo.k.family, lower: lower, upper: upper, system: lo.system}, nil
}
