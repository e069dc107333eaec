// Package temporal stores bitemporal version records of nodes and edges on a
// storage.Engine, through the typed key constructors of telha.dev/core/storage
// only.
//
// # Model
//
// Every fact has a valid-time interval [Valid.Start, Valid.End), when it is
// true in the world, and a transaction-time interval [TxStart, TxEnd), when
// the store knew it. A version record is keyed by (logical id, valid start,
// tx start) in node_versions or edge_versions; its value (format.go) holds
// the two ends, the labels, the properties, the tombstone flag and, for
// edges, the endpoints and the type.
//
// An assertion over [vs, ve) is also the correction mechanism: every version
// still known (TxEnd open) whose valid interval overlaps [vs, ve) is closed at
// the new transaction time, and its parts outside [vs, ve) are re-asserted as
// new versions at that same transaction time. So the versions known at any
// transaction time never overlap in valid time, and an as-of read (valid T,
// known at S) has at most one answer.
//
// Every version write puts, in one batch: the version row, its
// valid_time_index and tx_time_index rows (whose values are the version's
// primary key), for edges its adjacency_out and adjacency_in rows, and the
// rows of the registered Indexers. Closing a version rewrites its value and
// its adjacency rows; index rows never change because they are keyed by the
// start times only.
//
// # Transaction time
//
// One Clock per Store hands out strictly increasing transaction times:
// max(wall clock, last+1). Monotonicity across restarts needs no extra row:
// before the first write to a tenant after Open, the store reads the head of
// that tenant's tx_time_index (latest tx start first, by key order) and
// raises the clock above it. The high-water mark is therefore written in the
// same batch as the data it covers and can never lag behind it. Reads are
// always per tenant, so every observable sequence of transaction times is
// monotonic even if the wall clock stepped back while the store was down.
// Transaction times stay below Forever: a clock that would reach it fails
// with ErrClockExhausted, and the write with it, rather than wrap around.
//
// # Edge types
//
// Adjacency keys carry the 8-byte hash of an edge type name. Unless Options
// name another resolver, a Store registers every type name in the
// persisted, per-tenant EdgeTypeRegistry, in the batch of its first edge,
// and refuses a second name whose hash is taken (ErrEdgeTypeCollision):
// unchecked hashes would silently merge two types.
//
// # Tenant wipes
//
// The Store and its registry cache per tenant (the transaction high-water
// mark, the type names). Both listen for storage.WipeTenant on their engine
// and drop what they cache of the wiped tenant; the registry also reads its
// row before every registration, so that even rows deleted behind its back
// are registered again.
//
// # Concurrency
//
// A Store serialises its writes with one mutex (a write reads the versions
// it supersedes, then writes one batch); reads take no lock. Open at most
// one Store per engine.
package temporal
