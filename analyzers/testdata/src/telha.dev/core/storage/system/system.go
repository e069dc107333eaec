// Package system is the facade of the key authority for the system
// namespace.
package system

import "telha.dev/core/storage"

// JobKey returns the key of a system job.
func JobKey(state storage.JobState, priority uint8, created storage.Timestamp, id [16]byte) storage.Key {
	return storage.SystemScope{}.JobKey(state, priority, created, id)
}
