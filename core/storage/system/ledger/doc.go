// Package ledger is the erasure ledger: the record, in the reserved system
// namespace (the all-zero scope), of every physical erasure of a tenant, an
// entity or a passage of a document: which tenant, the bounds of every
// range deleted, the rows and bytes each held, when it was recorded, and
// when the verification scan found the tenant's ranges empty.
//
// A ledger entry is written in the same durable batch as the deletion it
// records (Commit), so an erasure is never done without its entry, nor
// recorded without being done. A restore from a checkpoint taken before an
// erasure replays the entries the checkpoint lacks: the stored bounds are
// turned back into ranges by storage.FromStoredBounds and checked again to
// lie inside the tenant the entry names, so that a ledger file cannot make
// a restore delete another tenant's rows.
//
// # Redactions
//
// A redaction (KindRedaction) takes byte ranges out of one blob of a
// tenant, or deletes the blob, and blocklists the text it had. Its rows
// are rewritten rather than range-deleted, so its entry records no
// deletion; it records what telha.dev/sources needs to do the same again
// to whatever a restored store holds of the blob: the blob (the entry's
// entity), the ranges, whether the blob was deleted, whether the facts
// its spans produced were erased too, and the keyed digest of the text the
// operation blocklisted. The split of replay is therefore:
//
//   - Replay replays deletions: tenant and entity entries. It refuses a
//     redaction (ErrNotDeletion).
//   - telha.dev/lifecycle replays a redaction: it asks telha.dev/sources
//     for the rows (Store.AddReplay) and writes them with the entry in one
//     durable batch (Commit). Those rows are keyed by the authority under
//     the entry's scope, so a redaction entry reaches no other tenant; an
//     entry that carries deletions as well, or ranges that are not sorted,
//     non-empty and apart, is ErrBadEntry wherever it is read.
//
// It exists for telha.dev/lifecycle alone. No entry point hands out a
// scope, a key or a range of the system namespace. lifecycle hands its
// entries (an Entry rebuilds the ranges it records, inside its tenant's
// scope) on to the operator CLI, telha.dev/cmd, which prints, exports and
// restores them, and to the network server's tests, telha.dev/server,
// which erase a tenant and check that its API keys died with it; to no
// other module.
//
//telha:facade for=telha.dev/lifecycle reexport=telha.dev/cmd,telha.dev/server
package ledger
