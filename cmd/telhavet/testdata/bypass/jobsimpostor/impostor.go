// Package impostor is a module of its own named below telha.dev/jobs: the
// facade that exists for telha.dev/jobs does not admit it.
package impostor

import "telha.dev/core/storage/system/jobqueue" // bypass

// Sweep is the reaper's sweep.
var Sweep = jobqueue.SweepLeases
