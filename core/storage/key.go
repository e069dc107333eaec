package storage

import "fmt"

// MaxKeyLen is the length of the longest key (the adjacency families).
const MaxKeyLen = 88

// Key is one fully encoded key together with its column family, so a node key
// can never be written into the edges family by mistake. It is a value type
// holding its bytes inline: building one does not allocate.
//
// The zero Key is invalid, as is every key built from the zero TenantScope;
// engines reject both with ErrInvalidKey.
//
//telha:opaque use the typed constructors of telha.dev/core/storage, e.g. storage.NodeVersionKey
type Key struct {
	family ColumnFamily
	n      uint8
	b      [MaxKeyLen]byte
}

// Family returns the key's column family.
func (k Key) Family() ColumnFamily { return k.family }

// Valid reports whether k was built by a constructor from a real scope.
func (k Key) Valid() bool { return k.n != 0 }

// Len returns the key's length in bytes, 0 for an invalid key.
func (k Key) Len() int { return int(k.n) }

// Bytes returns a copy of the key's bytes. Bytes flow out of the authority
// freely; they never flow back in.
func (k Key) Bytes() []byte { return append([]byte(nil), k.b[:k.n]...) }

// AppendTo appends the key's bytes to dst.
func (k Key) AppendTo(dst []byte) []byte { return append(dst, k.b[:k.n]...) }

// String renders the key with DescribeKey, or "invalid key".
func (k Key) String() string {
	if !k.Valid() {
		return "invalid key"
	}
	s, err := DescribeKey(k.family, k.b[:k.n])
	if err != nil {
		return fmt.Sprintf("%s %x (%v)", k.family, k.b[:k.n], err)
	}
	return s
}

// View returns the key's bytes without copying, for engines. The slice
// aliases k; writing to it would forge a key.
//
//telha:restricted rawbytes engines only; use Key.Bytes or Key.AppendTo for a copy
func (k *Key) View() []byte { return k.b[:k.n:k.n] }

// encoder fills a Key left to right. Its methods are small enough to inline,
// so a constructor compiles to a few stores into the returned value.
type encoder struct {
	k Key
}

func (e *encoder) scope(p [ScopeLen]byte) {
	copy(e.k.b[:ScopeLen], p[:])
	e.k.n = ScopeLen
}

func (e *encoder) raw(b []byte) {
	copy(e.k.b[e.k.n:], b)
	e.k.n += uint8(len(b))
}

func (e *encoder) u8(v uint8) {
	e.k.b[e.k.n] = v
	e.k.n++
}

func (e *encoder) u32(v uint32) {
	i := e.k.n
	e.k.b[i], e.k.b[i+1], e.k.b[i+2], e.k.b[i+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	e.k.n += 4
}

func (e *encoder) u64(v uint64) {
	i := e.k.n
	_ = e.k.b[i+7]
	e.k.b[i], e.k.b[i+1], e.k.b[i+2], e.k.b[i+3] = byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32)
	e.k.b[i+4], e.k.b[i+5], e.k.b[i+6], e.k.b[i+7] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	e.k.n += 8
}

// inv writes a timestamp inverted (latest first).
func (e *encoder) inv(t Timestamp) { e.u64(invert(ordered(t))) }

// asc writes a timestamp in ascending order.
func (e *encoder) asc(t Timestamp) { e.u64(ordered(t)) }
