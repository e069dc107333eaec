package reflects

import (
	"reflect"

	"telha.dev/bypass/helpers"
	"telha.dev/core/storage"
)

// holder holds any value.
type holder struct{ v any }

// Channel sends a key through a channel to reflect.
func Channel(k storage.Key) reflect.Value {
	ch := make(chan any, 1)
	ch <- &k
	return reflect.ValueOf(<-ch).MethodByName("View") // bypass
}

// Field stores a range in a field of interface type.
func Field(r storage.ScanRange) []reflect.Value {
	var h holder
	h.v = &r
	return helpers.Method(h.v, "Bounds") // bypass
}

// Func asserts a value to the signature of a restricted method expression.
func Func(v any, k *storage.Key) []byte {
	return v.(func(*storage.Key) []byte)(k) // bypass
}

// fieldOf hides a field lookup one call away.
func fieldOf(v reflect.Value, i int) reflect.Value { return v.Field(i) }

// Helper writes the bytes of a field that a helper reached, of a value of
// any type (a key parked in a container).
func Helper(x any, b []byte) {
	copy(fieldOf(reflect.ValueOf(x).Elem(), 1).Bytes(), b) // bypass
}
