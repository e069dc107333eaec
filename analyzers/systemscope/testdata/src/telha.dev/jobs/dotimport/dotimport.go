// Package dotimport dot-imports the authority.
package dotimport

import . "telha.dev/core/storage"

// SysKey builds a system job key.
func SysKey() Key {
	var s SystemScope                    // want `system-restricted storage.SystemScope used`
	return s.JobKey(0, 0, 0, [16]byte{}) // want `storage.SystemScope.JobKey used`
}
