// Package keys is a subsystem that builds keys and ranges from bytes.
package keys

import (
	"reflect"
	"unsafe"

	"telha.dev/core/storage"
)

// note mentions storage.Key{} in a string: not a literal.
const note = "storage.Key{} is for the authority only"

// Literals builds opaque values by composite literal.
func Literals() []storage.Key {
	k := storage.Key{}          // want `composite literal of opaque storage.Key outside the key authority; use a key constructor such as storage.NodeVersionKey`
	_ = storage.ScanRange{}     // want `composite literal of opaque storage.ScanRange outside the key authority; use a range constructor such as storage.NodeHistory`
	_ = &storage.TenantScope{}  // want `composite literal of opaque storage.TenantScope outside the key authority; use NewTenantScope`
	return []storage.Key{k, {}} // want `composite literal of opaque storage.Key`
}

// myKey has the representation of a key.
type myKey storage.Key

// Conversion converts into the opaque type.
func Conversion(m myKey) (storage.Key, *storage.Key) {
	return storage.Key(m), (*storage.Key)(&m) // want `conversion to storage.Key makes an opaque storage.Key outside the key authority` `conversion to \*storage.Key makes an opaque storage.Key`
}

// Unsafe casts bytes to keys and ranges.
func Unsafe(buf []byte) (*storage.Key, *[2]storage.ScanRange) {
	k := (*storage.Key)(unsafe.Pointer(&buf))             // want `unsafe.Pointer conversion to \*storage.Key makes an opaque storage.Key outside the key authority; use a key constructor such as storage.NodeVersionKey`
	r := (*[2]storage.ScanRange)(unsafe.Pointer(&buf[0])) // want `unsafe.Pointer conversion to \*\[2\]storage.ScanRange makes an opaque storage.ScanRange`
	return k, r
}

// Reflect builds keys by reflection.
func Reflect(buf []byte, other storage.Key) {
	var zero storage.Key
	_ = reflect.New(reflect.TypeOf(zero))                                   // want `reflect.New on a type derived from opaque storage.Key outside the key authority`
	_ = reflect.NewAt(reflect.TypeFor[storage.Key](), unsafe.Pointer(&buf)) // want `reflect.NewAt on a type derived from opaque storage.Key`
	_ = reflect.Zero(reflect.TypeOf(storage.ScanRange{}))                   // want `composite literal of opaque storage.ScanRange` `reflect.Zero on a type derived from opaque storage.ScanRange`
	reflect.ValueOf(&zero).Elem().Set(reflect.ValueOf(other))               // want `reflect.Value.Set on a type derived from opaque storage.Key`
	_ = reflect.TypeOf(zero).String()
}

// RawBytes calls the declarations that take or expose raw key bytes.
func RawBytes(k storage.Key, r storage.ScanRange) {
	_, _ = storage.FromStoredBounds(storage.NodeVersions, k.View(), nil) // want `rawbytes-restricted storage.FromStoredBounds used outside the key authority; use a range constructor such as storage.NodeHistory` `rawbytes-restricted storage.Key.View used outside the key authority; use Key.Bytes, which returns a copy`
	lower, upper := r.Bounds()                                           // want `rawbytes-restricted storage.ScanRange.Bounds used outside the key authority; use the Engine Scan API, which applies the bounds`
	view := k.View                                                       // want `storage.Key.View used`
	_, _, _ = lower, upper, view
}
