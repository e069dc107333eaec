package storagetest

import (
	"bytes"
	"testing"

	"telha.dev/core/storage"
)

// SystemRow is one row under the system prefix, with its family.
type SystemRow struct {
	Family storage.ColumnFamily
	storage.KV
}

// SystemRows returns every row of r under the system prefix (the all-zero
// scope), in every family, in family and key order. It is for the tests
// outside the key authority that prove no request reached the system
// namespace: they compare what it returns before and after.
func SystemRows(t testing.TB, r storage.Reader) []SystemRow {
	t.Helper()
	var zero [storage.ScopeLen]byte
	var out []SystemRow
	for _, cf := range storage.Families() {
		for kv, err := range r.Scan(storage.SystemScope{}.FullFamily(cf)) {
			if err != nil {
				t.Fatalf("scan %s: %v", cf, err)
			}
			if len(kv.Key) < storage.ScopeLen || !bytes.Equal(kv.Key[:storage.ScopeLen], zero[:]) {
				continue
			}
			out = append(out, SystemRow{cf, storage.KV{Key: bytes.Clone(kv.Key), Value: bytes.Clone(kv.Value)}})
		}
	}
	return out
}
