// Package testhelper borrows the authority's test helpers, which read the
// system namespace, from production code.
package testhelper

import (
	"testing"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest" // bypass
)

// SystemRows reads the system namespace under a benchmark's testing.B.
func SystemRows(r storage.Reader) (n int) {
	testing.Benchmark(func(b *testing.B) { n = len(storagetest.SystemRows(b, r)) })
	return n
}
