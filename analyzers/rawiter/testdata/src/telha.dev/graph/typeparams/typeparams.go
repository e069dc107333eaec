// Package typeparams uses the binding through generics.
package typeparams

import (
	"github.com/linxGnu/grocksdb" // want `import of raw engine binding`

	"telha.dev/graph/rawhelper"
)

// Box holds a value.
type Box[T any] struct{ V T }

// boxed instantiates Box over the raw iterator.
var boxed Box[*grocksdb.Iterator] // want `raw engine binding grocksdb.Iterator used`

// cursor is satisfied by the raw iterator.
type cursor interface {
	Valid() bool
	Next()
}

func drain[C cursor](c C) {
	for c.Valid() {
		c.Next()
	}
}

// either constrains by binding types.
func either[T *grocksdb.Iterator | *grocksdb.Slice](v T) T { // want `grocksdb.Iterator` `grocksdb.Slice`
	return v
}

func use(w rawhelper.Wrapped) {
	drain[*grocksdb.Iterator](boxed.V) // want `grocksdb.Iterator`
	drain(w)                           // want `typeparams.drain instantiated with rawhelper.Wrapped calls raw engine binding grocksdb.Iterator.Next through its constraint outside the key authority`
	either(boxed.V)
}
