package sources

import (
	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// apply writes b, durably when asked, fenced on the registry row of every
// tenant it writes (tenants.WriteFenced): a tenant being imported or
// erased is refused with tenants.ErrNotWritable, also when that began
// after b was checked.
func (s *Store) apply(b *storage.Batch, durable bool) error {
	return tenants.WriteFenced(s.engine, durable, b)
}
