package storage

import (
	"encoding/binary"
	"fmt"

	"github.com/google/uuid"
)

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

// encoder fills a Key left to right, in place. Its methods inline, and
// after inlining the offset is a constant at every step, so a constructor
// compiles to a few stores straight into its result with no bounds checks.
type encoder struct {
	k *Key
	n int
}

// startKey begins a key of family cf in k.
func startKey(k *Key, cf ColumnFamily) encoder {
	k.family = cf
	return encoder{k: k}
}

// tenant writes the scope prefix of s.
func (e *encoder) tenant(s TenantScope) {
	copy(e.k.b[0:16], s.tenant[:])
	copy(e.k.b[16:32], s.organization[:])
	e.n = ScopeLen
}

// system writes the all-zero prefix of the system scope.
func (e *encoder) system() {
	clear(e.k.b[0:ScopeLen])
	e.n = ScopeLen
}

func (e *encoder) id(id uuid.UUID) {
	copy(e.k.b[e.n:e.n+16], id[:])
	e.n += 16
}

func (e *encoder) u8(v uint8) {
	e.k.b[e.n] = v
	e.n++
}

func (e *encoder) u32(v uint32) {
	binary.BigEndian.PutUint32(e.k.b[e.n:e.n+4], v)
	e.n += 4
}

func (e *encoder) u64(v uint64) {
	binary.BigEndian.PutUint64(e.k.b[e.n:e.n+8], v)
	e.n += 8
}

// inv writes a timestamp inverted (latest first).
func (e *encoder) inv(t Timestamp) { e.u64(invert(ordered(t))) }

// asc writes a timestamp in ascending order.
func (e *encoder) asc(t Timestamp) { e.u64(ordered(t)) }

// done records the key's length; the key is valid from here on.
func (e *encoder) done() { e.k.n = uint8(e.n) }

// bytes returns what has been written so far.
func (e *encoder) bytes() []byte { return e.k.b[:e.n] }
