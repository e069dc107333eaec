// Package viahelper gets the system scope through syshelper without naming
// it.
package viahelper

import (
	"telha.dev/core/storage"
	"telha.dev/jobs/syshelper"
)

// Returned uses a returned system scope.
func Returned() storage.Key {
	s := syshelper.System()              // want `syshelper.System carries system-restricted storage.SystemScope outside the key authority; use a TenantScope from NewTenantScope`
	return s.JobKey(0, 0, 0, [16]byte{}) // want `storage.SystemScope.JobKey used`
}

// Assert gets the scope as an any and asserts it to the helper's alias.
func Assert() {
	v := syshelper.Any()
	_ = v.(syshelper.Sys) // want `syshelper.Sys carries system-restricted storage.SystemScope`
}

// Boxed uses a helper alias of a generic instantiation.
func Boxed(b syshelper.Boxed) any { // want `syshelper.Boxed carries system-restricted storage.SystemScope`
	return b.V
}
