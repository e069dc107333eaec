// Package system is the narrow facade through which subsystems reach the
// reserved system namespace (the all-zero scope): system jobs, the
// deployment-global embedding-model registry, and the job reaper's
// full-family sweep. Each entry point is specific to its job; none hands out
// a scope, a key or a range, so code outside the authority tree never names
// storage.SystemScope and telhavet can forbid it there without exemptions.
package system
