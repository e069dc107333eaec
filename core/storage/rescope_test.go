package storage

import (
	"bytes"
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// Every tenant key shape of the table, rescoped, is the key its
// constructor builds from the same arguments under the other scope.
func TestRescopeRowKeys(t *testing.T) {
	for _, sh := range keyShapes {
		if sh.system {
			continue
		}
		t.Run(sh.name, rapid.MakeCheck(func(t *rapid.T) {
			from, to := genScope.Draw(t, "from"), genScope.Draw(t, "to")
			a := sh.draw(t, from)
			k := sh.key(a)
			if !k.Valid() {
				return
			}
			a[0] = sh.scopeArg(to)
			want := sh.key(a)
			value := []byte("v")
			if k.Family() == ValidTimeIndex || k.Family() == TxTimeIndex {
				p, _ := DecodeValidTimeIndex(k.Bytes())
				if k.Family() == TxTimeIndex {
					p, _ = DecodeTxTimeIndex(k.Bytes())
				}
				value = versionKeyOf(from, p).Bytes()
			}
			got, v, err := RescopeRow(from, to, k.Family(), k.Bytes(), value)
			if err != nil || got != want {
				t.Fatalf("rescope %s to %s = %s, %v; want %s", k, to, got, err, want)
			}
			if k.Family() == ValidTimeIndex || k.Family() == TxTimeIndex {
				p, _ := Decode(k.Family(), k.Bytes())
				if wantV := versionKeyOf(to, p.(TemporalIndexParts)).Bytes(); !bytes.Equal(v, wantV) {
					t.Fatalf("rescoped index value %x, want %x", v, wantV)
				}
			} else if !bytes.Equal(v, value) {
				t.Fatalf("rescoped value %q, want it unchanged", v)
			}
		}))
	}
}

func versionKeyOf(s TenantScope, p TemporalIndexParts) Key {
	if p.Kind == IndexEdge {
		return EdgeVersionKey(s, p.ID, p.ValidStart, p.TxStart)
	}
	return NodeVersionKey(s, p.ID, p.ValidStart, p.TxStart)
}

func TestRescopeRowRefuses(t *testing.T) {
	a, b := fxS, mustScope(fxB, fxA)
	node := NodeVersionKey(a, fxA, 5, 6)
	index := ValidTimeIndexKey(a, 5, 6, fxA, IndexNode)
	tests := []struct {
		name     string
		from, to TenantScope
		cf       ColumnFamily
		key, val []byte
		want     error
	}{
		{"key of another scope", b, a, NodeVersions, node.Bytes(), nil, ErrOutOfRange},
		{"system key", a, b, Schema, SystemScope{}.VectorModelKey(1, 2).Bytes(), nil, ErrOutOfRange},
		{"zero from", TenantScope{}, b, NodeVersions, node.Bytes(), nil, ErrInvalidKey},
		{"zero to", a, TenantScope{}, NodeVersions, node.Bytes(), nil, ErrNilScope},
		{"short key", a, b, NodeVersions, node.Bytes()[:40], nil, ErrWrongLength},
		{"unknown family", a, b, 99, node.Bytes(), nil, ErrUnknownFamily},
		{"index value of another scope", a, b, ValidTimeIndex, index.Bytes(), NodeVersionKey(b, fxA, 5, 6).Bytes(), ErrOutOfRange},
		{"index value not a key", a, b, ValidTimeIndex, index.Bytes(), []byte("junk"), ErrWrongLength},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := RescopeRow(tt.from, tt.to, tt.cf, tt.key, tt.val); !errors.Is(err, tt.want) {
				t.Fatalf("rescope = %v, want %v", err, tt.want)
			}
		})
	}
}
