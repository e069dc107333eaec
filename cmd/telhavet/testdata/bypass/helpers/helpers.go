// Package helpers passes what it is given on to reflect and unsafe. It
// names nothing of the authority: only its capabilities are reported.
package helpers

import (
	"reflect"
	"unsafe" // bypass
)

// Method calls a method by name.
func Method(v any, name string) []reflect.Value {
	return reflect.ValueOf(v).MethodByName(name).Call(nil) // bypass
}

// Cast reinterprets memory.
func Cast[T, U any](p *T) *U { return (*U)(unsafe.Pointer(p)) }

// Bytes returns the bytes of any value.
func Bytes[T any](v *T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(v)), unsafe.Sizeof(*v))
}
