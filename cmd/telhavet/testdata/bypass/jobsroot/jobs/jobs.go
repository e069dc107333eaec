// Package jobs passes for telha.dev/jobs by its import path alone.
package jobs

import "telha.dev/core/storage/system/jobqueue" // bypass

// Sweep is the reaper's sweep.
var Sweep = jobqueue.SweepLeases
