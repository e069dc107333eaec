// Package reflects reaches the authority's restricted methods, unexported
// fields and engine bindings by reflection.
package reflects

import (
	"fmt"
	"reflect"

	"telha.dev/core/storage"
	"telha.dev/core/storage/rocksdb"
)

// View calls a restricted method by name.
func View(k storage.Key) []byte {
	out := reflect.ValueOf(&k).MethodByName("View").Call(nil) // bypass
	return out[0].Bytes()
}

// DB reaches the engine's unexported binding handle.
func DB(e *rocksdb.Engine) reflect.Value {
	return reflect.ValueOf(e).Elem().FieldByName("db") // bypass
}

// Behind reaches the engine behind the interface.
func Behind(e storage.Engine) reflect.Type {
	return reflect.TypeOf(e) // bypass
}

// Boxed goes through an interface variable first.
func Boxed(r storage.ScanRange) []reflect.Value {
	var x any = &r
	return reflect.ValueOf(x).MethodByName("Bounds").Call(nil) // bypass
}

// Make makes a key by reflection.
func Make() any {
	return reflect.New(reflect.TypeFor[storage.Key]()).Interface() // bypass
}

// Set overwrites a key's unexported fields.
func Set(dst *storage.Key, b []byte) {
	f := reflect.ValueOf(dst).Elem().Field(1) // bypass
	reflect.Copy(f, reflect.ValueOf(b))
}

// Print prints a key: the standard library's reflection reads, it does
// not reach. Near miss.
func Print(k storage.Key) string {
	return fmt.Sprint(k) + fmt.Sprintf("%v", &k)
}
