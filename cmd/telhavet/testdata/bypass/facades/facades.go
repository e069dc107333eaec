// Package facades imports the authority's facades, which exist for other
// packages.
package facades

import (
	"telha.dev/core/storage"
	"telha.dev/core/storage/system/jobqueue" // bypass
	"telha.dev/core/storage/system/models"   // bypass
)

// Sweep reads every tenant's leased jobs.
func Sweep(e storage.Engine) (int, error) {
	jobs, _, err := jobqueue.SweepLeases(e, func([]byte) bool { return true })
	_ = models.MetricCosine
	return len(jobs), err
}
