package storage

import "fmt"

// RescopeRow returns a row of tenant scope from, given as the bytes of its
// key of family cf and its value, as the same row of tenant scope to: the
// key with the same fields under to, and the value with every key it
// holds moved the same way (a temporal index row holds its primary version
// key; every other family's value holds no key and is returned as it is).
// It is how a tenant's exported rows are imported under another scope; for
// from == to it checks the row and changes nothing.
//
// The key bytes must decode as a key of cf and carry exactly the scope
// from, as ParseKey requires, and so must a key held in the value; the
// error wraps ErrOutOfRange, or a decoder's error. Neither scope may be
// the zero TenantScope, so no row of the system scope is read or made.
func RescopeRow(from, to TenantScope, cf ColumnFamily, key, value []byte) (Key, []byte, error) {
	if to.IsZero() {
		return Key{}, nil, fmt.Errorf("rescope %s row to the zero scope: %w", cf, ErrNilScope)
	}
	k, err := ParseKey(from, cf, key)
	if err != nil {
		return Key{}, nil, fmt.Errorf("rescope %s row: %w", cf, err)
	}
	copy(k.b[:ScopeLen], to.p[:])
	if cf != ValidTimeIndex && cf != TxTimeIndex {
		return k, value, nil
	}
	kind := IndexKind(key[TemporalIndexKeyLen-1]) // ParseKey checked it
	primary, err := ParseKey(from, kind.Family(), value)
	if err != nil {
		return Key{}, nil, fmt.Errorf("rescope %s row %s: its primary key: %w", cf, k, err)
	}
	copy(primary.b[:ScopeLen], to.p[:])
	return k, primary.Bytes(), nil
}
