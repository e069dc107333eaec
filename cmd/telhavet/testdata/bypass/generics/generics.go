// Package generics reaches restricted methods through constraints.
package generics

import "telha.dev/core/storage"

type viewer interface {
	View() []byte
}

func raw[V viewer](v V) []byte { return v.View() }

// Raw instantiates raw with a key.
func Raw(k storage.Key) []byte {
	return raw(&k) // bypass
}

// Expression takes the restricted method as a method expression.
var Expression = (*storage.Key).View // bypass
