// Package tenants is the narrow facade of the tenant registry, which lives
// in the reserved system namespace (the all-zero scope): one row per
// provisioned tenant, with its display name and its lifecycle state
// (active, importing, erasing, erased). It exists for telha.dev/lifecycle,
// which provisions, lists, exports, imports and erases tenants through it,
// and for the subsystems that write a tenant's rows (telha.dev/temporal,
// telha.dev/sources, telha.dev/vector; telha.dev/jobs through the job
// queue's facade), which fence every write on the tenant's row
// (RequireWritable) so that no write lands in a tenant being imported or
// erased.
//
// No entry point hands out a system scope, a key or a range, so code
// outside the authority tree never names storage.SystemScope and telhavet
// can forbid it there without exemptions.
//
//telha:facade for=telha.dev/lifecycle,telha.dev/temporal,telha.dev/sources,telha.dev/vector,telha.dev/jobs
package tenants
