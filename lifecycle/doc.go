// Package lifecycle gives a tenant a life: provisioned in the registry of
// the system namespace, exported and imported as one portable file, erased
// physically (every family range-deleted, compacted out of the engine's
// files, verified empty), entity by entity or whole, with every erasure
// written to a ledger that a restore from an older checkpoint replays
// before it serves a read. See docs/design.md, "Tenant lifecycle and
// erasure".
package lifecycle
