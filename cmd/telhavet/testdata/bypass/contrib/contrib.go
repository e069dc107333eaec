// Package contrib is a module named below the authority's tree, outside
// it: the name gives it nothing.
package contrib

import "telha.dev/core/storage"

// Sweep scans every tenant.
func Sweep(e storage.Engine) int {
	n := 0
	for range e.Scan(storage.SystemScope{}.FullFamily(storage.Jobs)) { // bypass
		n++
	}
	return n
}
