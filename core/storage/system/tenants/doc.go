// Package tenants is the narrow facade of the tenant registry, which lives
// in the reserved system namespace (the all-zero scope): one row per
// provisioned tenant, with its display name and its lifecycle state
// (active, erasing, erased). It exists for telha.dev/lifecycle alone, which
// provisions, lists, exports, imports and erases tenants through it.
//
// No entry point hands out a system scope, a key or a range, so code
// outside the authority tree never names storage.SystemScope and telhavet
// can forbid it there without exemptions.
//
//telha:facade for=telha.dev/lifecycle
package tenants
