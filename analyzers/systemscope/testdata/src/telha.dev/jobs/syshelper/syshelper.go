// Package syshelper hands the system scope to packages that do not name it.
// It is outside the authority, so it is reported too.
package syshelper

import "telha.dev/core/storage"

// Sys is an alias of the system scope.
type Sys = storage.SystemScope // want `storage.SystemScope used`

// System returns the system scope.
func System() storage.SystemScope { // want `storage.SystemScope used`
	return Sys{}
}

// Any returns the system scope as an interface value.
func Any() any {
	return System()
}

// Box holds a value.
type Box[T any] struct{ V T }

// Boxed is a generic instantiation over the system scope.
type Boxed = Box[storage.SystemScope] // want `storage.SystemScope used`
