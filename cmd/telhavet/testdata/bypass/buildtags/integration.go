//go:build integration

package buildtags

import "telha.dev/core/storage"

// Sweep is seen only with -tags integration.
func Sweep() storage.ScanRange {
	return storage.SystemScope{}.FullFamily(storage.Jobs) // bypass
}
