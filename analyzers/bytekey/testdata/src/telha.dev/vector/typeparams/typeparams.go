// Package typeparams builds keys through generics.
package typeparams

import (
	"reflect"

	"telha.dev/core/storage"
)

// conv converts a type parameter into the opaque type.
func conv[T storage.Key](v T) storage.Key {
	return storage.Key(v) // want `conversion to storage.Key makes an opaque storage.Key`
}

// fresh makes a value of a type parameter by reflection.
func fresh[T any]() T {
	return reflect.Zero(reflect.TypeFor[T]()).Interface().(T)
}

// viewer is satisfied by *storage.Key.
type viewer interface{ View() []byte }

func raw[V viewer](v V) []byte { return v.View() }

// Pair holds two values.
type Pair[A, B any] struct {
	A A
	B B
}

func use(k storage.Key) {
	_ = conv(k)
	_ = reflect.New(reflect.TypeFor[storage.Key]()) // want `reflect.New on a type derived from opaque storage.Key`
	_ = Pair[storage.Key, int]{}                    // a zero key, allowed
	_ = Pair[storage.Key, int]{A: storage.Key{}}    // want `composite literal of opaque storage.Key`
	_ = raw(&k)                                     // want `typeparams.raw instantiated with \*storage.Key calls rawbytes-restricted storage.Key.View through its constraint`
	_ = fresh[storage.Key]()
}
