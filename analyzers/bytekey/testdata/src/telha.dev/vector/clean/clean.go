// Package clean builds keys and ranges the sanctioned way, and has names of
// its own that match the authority's. Nothing here is reported.
package clean

import (
	"reflect"

	"telha.dev/core/storage"
)

// Key is a local type named like the authority's.
type Key struct{ b []byte }

// View is a local method named like the restricted one.
func (k *Key) View() []byte { return k.b }

// Build uses the constructors: storage.Key{} appears only in this comment.
func Build(e storage.Engine, tenant, org, node [16]byte) ([]byte, error) {
	scope, err := storage.NewTenantScope(tenant, org)
	if err != nil {
		return nil, err
	}
	var zero storage.Key
	k := storage.NodeVersionKey(scope, node, 1)
	for key, value := range e.Scan(storage.NodeHistory(scope, node)) {
		_ = key.Bytes()
		_ = value
	}
	local := &Key{b: k.Bytes()}
	_ = reflect.New(reflect.TypeOf(local))
	_ = reflect.ValueOf(zero).Kind()
	return append(local.View(), "storage.Key{}"...), nil
}
