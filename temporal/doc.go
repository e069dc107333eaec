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
// Transaction times of a tenant strictly increase in commit order, across
// every process that writes the tenant on one store (the replicas of a
// deployment on one etcd cluster), and no two versions of one entity share
// one. One Clock per Store proposes times: max(wall clock, last+1). The
// store keeps each tenant's clock too, a counter of the system namespace
// (storage.ReadTxClock), and every write advances it, in the write's own
// batch, to the latest time the write used, on the condition that it
// still holds what the write read. Before it hands out a time the Clock
// is raised above what the store's clock holds, so each commit's times lie
// above every time committed before it: a hybrid logical clock, fenced by
// a conditional write. A write that another process's write overtook
// fails the condition, applies nothing, and is made again from a fresh
// reading of the clock and of the versions it supersedes, so writes of
// one tenant are serializable across processes as well as within one.
//
// A Store keeps the clock as it last wrote it, so a process that writes
// alone pays no extra read: the condition holds. The first write of a
// tenant in a Store reads it (one point read), and so does every write
// after a conflict.
//
// Under clock skew the order holds; what skew moves is how far
// transaction times run from real time: a process whose wall clock is
// behind the store's clock gets the store's clock plus one microsecond,
// so transaction times run ahead of a slow clock by at most the largest
// skew among the writers, and never go back.
//
// Before the first write to a tenant after Open, the store also reads the
// head of that tenant's tx_time_index (latest tx start first, by key
// order) and raises the clock above it, which covers rows written without
// the counter (an import of another store's rows). Transaction times stay
// below Forever: a clock that would reach it fails with ErrClockExhausted,
// and the write with it, rather than wrap around.
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
// it supersedes, then writes one batch); reads take no lock. Writes of one
// tenant through other Stores, in this process or others, are serialized
// with them by the tenant's clock (above): a write whose reading is stale
// is refused by the engine and made again. One Store per engine per
// process spares those retries.
package temporal
