// Package sysuse is a subsystem that names the system scope.
package sysuse

import (
	"iter"

	"telha.dev/core/storage"
)

// note mentions storage.SystemScope in a string: not a use.
const note = "storage.SystemScope is for the authority only"

// Enqueue builds a job key in the system namespace.
func Enqueue(id [16]byte) storage.Key {
	var s storage.SystemScope    // want `system-restricted storage.SystemScope used outside the key authority; use a TenantScope from NewTenantScope, or the system facade in telha.dev/core/storage/system`
	return s.JobKey(0, 1, 2, id) // want `system-restricted storage.SystemScope.JobKey used outside the key authority; use storage.JobKey with a TenantScope`
}

// MethodValue takes the restricted method as a value.
func MethodValue() func(storage.JobState, uint8, storage.Timestamp, [16]byte) storage.Key {
	return storage.SystemScope{}.JobKey // want `storage.SystemScope used` `storage.SystemScope.JobKey used`
}

// embeds embeds the system scope.
type embeds struct {
	storage.SystemScope // want `system-restricted storage.SystemScope used`
}

// Promoted calls the restricted method promoted through embeds.
func Promoted(e embeds) storage.Key {
	return e.JobKey(0, 1, 2, [16]byte{}) // want `storage.SystemScope.JobKey used`
}

// scope is an alias of the system scope.
type scope = storage.SystemScope // want `storage.SystemScope used`

// Values reads restricted variables and constants, marked on the spec and
// on the group.
func Values() (bool, string) {
	return storage.SystemPrefix == [32]byte{}, storage.SystemTenant // want `system-restricted storage.SystemPrefix used outside the key authority; use the prefix of a TenantScope` `system-restricted storage.SystemTenant used outside the key authority; use the system facade`
}

// FullScan calls a restricted interface method of another kind.
func FullScan(e storage.Engine) iter.Seq2[storage.Key, []byte] {
	f := storage.DefaultFamily
	return e.ScanFamily(f) // want `fullscan-restricted storage.Engine.ScanFamily used outside the key authority; use Scan with a ScanRange from a range constructor`
}
