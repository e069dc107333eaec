package storage

import "fmt"

// MaxKeyLen is the length of the longest key (the adjacency families).
const MaxKeyLen = 88

// Key is one fully encoded key together with its column family, so a node key
// can never be written into the edges family by mistake. It is a value type
// holding its bytes inline: building one does not allocate. A valid key's
// bytes past its length are always zero, so equal keys are equal values and
// a Key can be a map key.
//
// The zero Key is invalid, as is every key built from the zero TenantScope;
// engines reject both with ErrInvalidKey.
//
//telha:opaque use the typed constructors of telha.dev/core/storage, e.g. storage.NodeVersionKey
type Key struct {
	_      [0]uint64 // aligns b, so that 8-byte fields at 8-aligned offsets never straddle a cache line
	b      [MaxKeyLen]byte
	family ColumnFamily
	n      uint8 // the length, with systemBit set for a key of the system scope
}

// systemBit marks, in Key.n, a key of the system scope. It tells a system
// key, whose all-zero prefix is legitimate, from a key built from the zero
// TenantScope, whose all-zero prefix is not. The key setters must inline, so
// they copy the scope without looking at it and Valid makes the check.
const systemBit = 0x80

// A key's length shares its byte with systemBit, so every length must stay
// below it; this fails to compile if MaxKeyLen ever reaches it.
var _ [systemBit - 1 - MaxKeyLen]struct{}

// Family returns the key's column family. Check Valid first: an invalid
// key's family means nothing (a key refused for its arguments reports 0, a
// key from the zero scope the family it was built for).
func (k Key) Family() ColumnFamily { return k.family }

// Valid reports whether k was built by a constructor from a real scope and
// valid arguments: it has a family, the length of that family's layout,
// every discriminator byte of the layout inside its enumeration, and a
// tenant scope (both ids set), unless it is a system key, whose scope is
// all zero and whose family holds system rows. A setter that refuses its
// arguments clears the family and keeps the length, so that the next setter
// still clears what lies past its own.
//
// Valid checks the whole key, not a flag: engines call it on every key they
// are handed, so a Key whose bytes were changed after it was built (through
// View, unsafe or a data race) is refused rather than stored where no range
// can reach it.
func (k Key) Valid() bool {
	n := k.n &^ systemBit
	if !k.family.Valid() || int(n) != layoutLen(k.family, k.b[:]) {
		return false
	}
	if k.n&systemBit != 0 {
		return hasSystemRows(k.family) && isSystemPrefix(k.b[:ScopeLen])
	}
	return isTenantPrefix(k.b[:ScopeLen])
}

// CheckKeyBytes returns nil if b is a key that a valid Key of family cf
// could hold: the rule of Key.Valid, applied to stored bytes. Readers of
// rows they did not write themselves (a checkpoint, a restored store) call
// it on every key, so that one undecodable row is reported where it is,
// rather than failing a later sweep for every tenant. The error wraps
// ErrUnknownFamily, ErrWrongLength, ErrHalfNilScope, ErrUnknownKind, or
// ErrNilScope for a system-scope key in a family that holds no system rows.
func CheckKeyBytes(cf ColumnFamily, b []byte) error {
	if _, err := Decode(cf, b); err != nil {
		return err
	}
	k := Key{family: cf, n: uint8(len(b))}
	copy(k.b[:], b)
	if isSystemPrefix(b[:ScopeLen]) {
		k.n |= systemBit
	}
	if !k.Valid() {
		return fmt.Errorf("%s key %x: system scope in a family without system rows: %w", cf, b, ErrNilScope)
	}
	return nil
}

// Len returns the key's length in bytes, 0 for an invalid key.
func (k Key) Len() int {
	if !k.Valid() {
		return 0
	}
	return int(k.n &^ systemBit)
}

// Bytes returns a copy of the key's bytes. Bytes flow out of the authority
// freely; they never flow back in.
func (k Key) Bytes() []byte { return append([]byte(nil), k.b[:k.Len()]...) }

// AppendTo appends the key's bytes to dst.
func (k Key) AppendTo(dst []byte) []byte { return append(dst, k.b[:k.Len()]...) }

// String renders the key with DescribeKey, or "invalid key".
func (k Key) String() string {
	if !k.Valid() {
		return "invalid key"
	}
	b := k.b[:k.Len()]
	s, err := DescribeKey(k.family, b)
	if err != nil {
		return fmt.Sprintf("%s %x (%v)", k.family, b, err)
	}
	return s
}

// View returns the key's bytes without copying, for engines; empty for an
// invalid key. The slice aliases k; writing to it would forge a key.
//
//telha:restricted rawbytes engines only; use Key.Bytes or Key.AppendTo for a copy
func (k *Key) View() []byte {
	n := k.Len()
	return k.b[:n:n]
}

// shrink prepares k for a key of length n: it clears what a longer key left
// past n, so that bytes past the length stay zero. A Key reused for keys of
// one shape skips the clearing.
func (k *Key) shrink(n uint8) {
	if k.n&^systemBit > n {
		clear(k.b[n:])
	}
}
