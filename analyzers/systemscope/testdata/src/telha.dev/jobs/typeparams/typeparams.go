// Package typeparams reaches the system scope through generics.
package typeparams

import "telha.dev/core/storage"

// Box holds a value.
type Box[T any] struct{ V T }

// boxed instantiates Box over the system scope.
var boxed Box[storage.SystemScope] // want `storage.SystemScope used`

// either constrains by the system scope.
func either[T storage.SystemScope | storage.TenantScope](v T) T { // want `storage.SystemScope used`
	return v
}

// jobKeyer is satisfied by the system scope.
type jobKeyer interface {
	JobKey(storage.JobState, uint8, storage.Timestamp, [16]byte) storage.Key
}

func keyOf[K jobKeyer](k K) storage.Key {
	return k.JobKey(0, 0, 0, [16]byte{})
}

// wrapped embeds the system scope, so it satisfies jobKeyer.
type wrapped struct {
	storage.SystemScope // want `storage.SystemScope used`
}

func use() {
	_ = keyOf(boxed.V)
	_ = keyOf(wrapped{}) // want `typeparams.keyOf instantiated with typeparams.wrapped calls system-restricted storage.SystemScope.JobKey through its constraint outside the key authority; use storage.JobKey with a TenantScope`
	_ = either(boxed.V)
}
