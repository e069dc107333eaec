// Package carrier holds the system scope in types of its own, naming it.
package carrier

import "telha.dev/core/storage"

// Holder embeds the system scope.
type Holder struct {
	storage.SystemScope // bypass
	Name                string
}

// Outer holds a Holder.
type Outer struct{ Inner Holder }

// Box holds anything.
type Box[T any] struct{ V T }

// New returns an Outer.
func New() Outer { return Outer{} }
