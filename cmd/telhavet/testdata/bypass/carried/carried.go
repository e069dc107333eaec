// Package carried reaches the system scope through carrier's types,
// never naming it.
package carried

import (
	"telha.dev/bypass/carrier"
	"telha.dev/core/storage"
)

// Job builds a system job key.
func Job() storage.Key {
	o := carrier.New()                         // bypass
	return o.Inner.JobKey(0, 0, 0, [16]byte{}) // bypass
}

// Boxed takes a box of one.
func Boxed(b carrier.Box[carrier.Outer]) storage.ScanRange {
	return b.V.Inner.FullFamily(storage.Jobs) // bypass
}
