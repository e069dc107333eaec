package lifecycle

import (
	"fmt"

	"telha.dev/core/storage"
)

// FamilyCount is what one family of a tenant holds.
type FamilyCount struct {
	Family storage.ColumnFamily
	Rows   uint64
	Bytes  uint64 // keys and values
}

// Verify counts the rows of scope in every family of e, one TenantAll pass
// per family, in family order: after an erasure every count must be zero.
func Verify(r storage.Reader, scope storage.TenantScope) ([]FamilyCount, error) {
	if scope.IsZero() {
		return nil, fmt.Errorf("verify: %w", storage.ErrNilScope)
	}
	rs := storage.TenantRanges(scope)
	out := make([]FamilyCount, 0, len(rs))
	for _, rg := range rs {
		c, err := countRanges(r, []storage.ScanRange{rg})
		if err != nil {
			return nil, fmt.Errorf("verify %s: %w", scope, err)
		}
		c.Family = rg.Family()
		out = append(out, c)
	}
	return out, nil
}

// countRanges counts the rows of every range of rs. It reads only their
// lengths, so it borrows them (storage.ScanView).
func countRanges(r storage.Reader, rs []storage.ScanRange) (FamilyCount, error) {
	var c FamilyCount
	for _, rg := range rs {
		for kv, err := range storage.ScanView(r, rg) {
			if err != nil {
				return c, fmt.Errorf("scan %s: %w", rg.Family(), err)
			}
			c.Rows++
			c.Bytes += uint64(len(kv.Key) + len(kv.Value))
		}
	}
	return c, nil
}
