// Package jobqueue is the job queue's narrow facade to the reserved system
// namespace (the all-zero scope): the system jobs, and the reaper's lease
// sweep over the whole jobs family. It exists for telha.dev/jobs alone.
//
// Each entry point is specific to its job; none hands out a scope, a key or
// a range, so code outside the authority tree never names
// storage.SystemScope and telhavet can forbid it there without exemptions.
//
//telha:facade for=telha.dev/jobs
package jobqueue
