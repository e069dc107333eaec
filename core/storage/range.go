package storage

import (
	"bytes"
	"fmt"
)

// ScanRange is the half-open key interval [lower, upper) of one column family
// that a scan visits. Every constructor derives both bounds from a scope plus
// typed components, so a tenant's range never leaves its 32-byte prefix.
// A nil upper bound means "to the end of the family"; it arises only for
// the all-0xFF scope, which has no successor, and for the system full-family
// sweep.
//
// The zero ScanRange is invalid, as is every range built from the zero
// TenantScope; engines reject both with ErrInvalidRange.
//
//telha:opaque use the typed range constructors of telha.dev/core/storage, e.g. storage.NodeHistory
type ScanRange struct {
	family ColumnFamily
	lower  []byte
	upper  []byte
	// system marks a range of the system scope, whose all-zero prefix is
	// legitimate, as systemBit marks a system Key.
	system bool
	// crossesScopes is set only by the system full-family sweep, which must
	// use total-order iteration instead of prefix iteration.
	crossesScopes bool
}

// Family returns the range's column family.
func (r ScanRange) Family() ColumnFamily { return r.family }

// Valid reports whether r was built by a constructor from a real scope: it
// has a family, and its bounds are confined to one scope, a tenant's (both
// ids set) or, for the system constructors, the system scope; only the
// system full-family sweep spans scopes.
//
// Valid checks the bounds themselves, not a flag: engines call it on every
// range they are handed, so a range whose bytes were changed after it was
// built (through Bounds, unsafe or a data race) is refused rather than
// scanned across tenants.
func (r ScanRange) Valid() bool {
	if !r.family.Valid() || len(r.lower) < ScopeLen {
		return false
	}
	if r.crossesScopes {
		return r.system
	}
	scope := r.lower[:ScopeLen]
	if r.system {
		if !isSystemPrefix(scope) {
			return false
		}
	} else if !isTenantPrefix(scope) {
		return false
	}
	var buf [ScopeLen]byte
	limit, bounded := successor(buf[:0], scope)
	if !bounded {
		return true // the all-0xFF scope: every key from lower on is in it
	}
	return r.upper != nil && bytes.Compare(r.upper, limit) <= 0
}

// WithinOneScope reports whether every key of r shares one 32-byte scope
// prefix, which lets engines use prefix iteration (RocksDB's
// prefix_same_as_start). Only the system full-family sweep crosses scopes.
func (r ScanRange) WithinOneScope() bool { return !r.crossesScopes }

// Contains reports whether key bytes of r's family fall inside r.
func (r ScanRange) Contains(k Key) bool {
	return r.Valid() && k.Valid() && k.family == r.family && r.containsBytes(k.b[:k.Len()])
}

func (r ScanRange) containsBytes(b []byte) bool {
	return bytes.Compare(b, r.lower) >= 0 && (r.upper == nil || bytes.Compare(b, r.upper) < 0)
}

// String renders the bounds in hex.
func (r ScanRange) String() string {
	if !r.Valid() {
		return "invalid range"
	}
	upper := "end"
	if r.upper != nil {
		upper = fmt.Sprintf("%x", r.upper)
	}
	return fmt.Sprintf("%s [%x, %s)", r.family, r.lower, upper)
}

// Bounds returns the range's bounds without copying, for engines. upper is
// nil when the range runs to the end of the family.
//
//telha:restricted rawbytes engines only; pass the ScanRange itself to Engine.Scan or Engine.DeleteRange
func (r *ScanRange) Bounds() (lower, upper []byte) { return r.lower, r.upper }

// After returns the rest of r strictly after cursor, for pagination: the
// cursor must be a key of r's family that lies inside r, so a cursor from
// another scope or family is rejected with ErrOutOfRange.
func (r ScanRange) After(cursor Key) (ScanRange, error) {
	if !r.Valid() {
		return ScanRange{}, ErrInvalidRange
	}
	if !r.Contains(cursor) {
		return ScanRange{}, fmt.Errorf("resume %s scan after %s: %w", r.family, cursor, ErrOutOfRange)
	}
	// All keys of a family are fixed-width, so cursor+0x00 is the smallest
	// byte string above the cursor and below every greater key.
	buf := make([]byte, 0, cursor.Len()+1+len(r.upper))
	buf = append(append(buf, cursor.b[:cursor.Len()]...), 0)
	lower := buf[:len(buf):len(buf)]
	var upper []byte
	if r.upper != nil {
		upper = append(buf[len(buf):], r.upper...)
		if bytes.Compare(lower, upper) >= 0 {
			return ScanRange{}, fmt.Errorf("resume %s scan after %s: %w", r.family, cursor, ErrEmptyRange)
		}
	}
	return ScanRange{family: r.family, lower: lower, upper: upper, system: r.system, crossesScopes: r.crossesScopes}, nil
}

// successor returns the smallest byte string greater than every string that
// starts with b, by incrementing the last byte that is not 0xFF and dropping
// what follows; ok is false when b is all 0xFF and has no successor. The
// result is appended to dst.
//
// Applied to a scope prefix followed by typed components, a suffix of all
// 0xFF carries into the scope bytes and yields exactly the scope's own upper
// bound: the range tightens to the scope and never reaches the next tenant.
func successor(dst, b []byte) (out []byte, ok bool) {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != 0xFF {
			out = append(dst, b[:i+1]...)
			out[len(out)-1]++
			return out, true
		}
	}
	return dst, false
}
