// Package ledger is the erasure ledger: the record, in the reserved system
// namespace (the all-zero scope), of every physical erasure of a tenant or
// an entity: which tenant, the bounds of every range deleted, the rows and
// bytes each held, when it was recorded, and when the verification scan
// found the tenant's ranges empty.
//
// A ledger entry is written in the same durable batch as the deletion it
// records (Commit), so an erasure is never done without its entry, nor
// recorded without being done. A restore from a checkpoint taken before an
// erasure replays the entries the checkpoint lacks (Replay): the stored
// bounds are turned back into ranges by storage.FromStoredBounds and
// checked again to lie inside the tenant the entry names, so that a ledger
// file cannot make a restore delete another tenant's rows.
//
// It exists for telha.dev/lifecycle alone. No entry point hands out a
// scope, a key or a range of the system namespace.
//
//telha:facade for=telha.dev/lifecycle
package ledger
