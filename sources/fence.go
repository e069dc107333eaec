package sources

import (
	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// apply writes b, durably when asked, fenced on the registry row of scope
// (tenants.RequireWritable): a tenant being imported or erased is refused
// with tenants.ErrNotWritable, also when it began after b was checked.
func (s *Store) apply(scope storage.TenantScope, b *storage.Batch, durable bool) error {
	if err := tenants.RequireWritable(s.engine, b, scope); err != nil {
		return err
	}
	write := s.engine.Write
	if durable {
		write = s.engine.WriteDurable
	}
	return tenants.Refused(s.engine, scope, write(b))
}
