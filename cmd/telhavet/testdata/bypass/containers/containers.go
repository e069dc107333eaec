// Package containers reaches keys by reflect after they passed through a
// standard container, where no analysis follows a value.
package containers

import (
	"reflect"
	"sync/atomic"

	"telha.dev/core/storage"
)

var box atomic.Value

// Store puts a key in the box.
func Store(k *storage.Key) { box.Store(k) }

// Pointer takes the key's address.
func Pointer() *storage.Key {
	return (*storage.Key)(reflect.ValueOf(box.Load()).UnsafePointer()) // bypass
}

// View calls the key's raw accessor by name, over two lines.
func View() []byte {
	m := reflect.ValueOf(box.Load()).MethodByName("View")
	return m.Call(nil)[0].Bytes() // bypass
}

// Alias aliases the key's unexported bytes.
func Alias() []byte {
	return reflect.ValueOf(box.Load()).Elem().Field(1).Bytes() // bypass
}

// Kind reads what the box holds: a near miss.
func Kind() reflect.Kind { return reflect.TypeOf(box.Load()).Kind() }
