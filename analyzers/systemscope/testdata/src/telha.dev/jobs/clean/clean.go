// Package clean uses the sanctioned API, and names of its own that match
// restricted names of the authority. Nothing here is reported.
package clean

import (
	"telha.dev/core/storage"
	"telha.dev/core/storage/system"
)

// SystemScope is a local type named like the authority's.
type SystemScope struct{}

// JobKey is a local method named like the restricted one.
func (SystemScope) JobKey() string { return "storage.SystemScope.JobKey" }

// Keys builds keys with the sanctioned constructors: a tenant scope from
// storage.NewTenantScope, and the system facade (not storage.SystemScope).
func Keys(e storage.Engine, tenant, org, node [16]byte) ([]storage.Key, error) {
	scope, err := storage.NewTenantScope(tenant, org)
	if err != nil {
		return nil, err
	}
	var zero storage.Key
	keys := []storage.Key{
		zero,
		storage.JobKey(scope, 0, 1, 2, node),
		storage.NodeVersionKey(scope, node, 3),
		system.JobKey(0, 1, 2, node),
	}
	for k := range e.Scan(storage.NodeHistory(scope, node)) {
		keys = append(keys, k)
	}
	_ = SystemScope{}.JobKey()
	return keys, nil
}
