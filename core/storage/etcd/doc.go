// Package etcd is Telha's replicated storage engine: storage.Engine on an
// etcd cluster through go.etcd.io/etcd/client/v3. A cluster of three
// members survives the loss of one with every acknowledged write; it does
// not hold more data than one member can (docs/distributed.md says what
// etcd buys and what it does not).
//
// The mapping, one etcd feature per engine operation:
//
//   - a key is namespace ‖ family byte ‖ Telha key, so a family is one
//     contiguous interval and a range one etcd range (keys.go);
//   - a batch is one transaction, atomic and durable on a quorum; a get is
//     a linearizable read;
//   - a scan reads pages, every page after the first at the revision of the
//     first, so it sees one state however long it runs;
//   - a snapshot is a revision, read with WithRev;
//   - a checkpoint is etcd's maintenance snapshot of one member, and
//     Restore loads one namespace of it into a cluster.
//
// The traps, each handled in one place:
//
//   - etcd refuses a transaction over --max-txn-ops operations or
//     --max-request-bytes bytes. The engine computes the exact size the
//     leader will log and refuses, typed, before sending (limits.go); it
//     never splits a batch, which would make it non-atomic.
//   - etcd refuses a transaction that touches one key twice; a batch may.
//     The last mutation of a key wins, as in every engine.
//   - A call to a cluster without a quorum waits for the server's own
//     timeouts, or forever when no member is reachable. Every call carries
//     Config.Timeout and fails with ErrUnavailable after it; a
//     write that fails so has an unknown outcome and is never retried by
//     the engine, since applying it twice is another history.
//   - etcd compacts old revisions: a snapshot or a paused scan older than
//     the cluster's retention reads ErrCompacted instead of a newer state.
//   - A follower may lag the leader: reads are linearizable, pages included,
//     so a page at a revision never reaches a member that has not applied
//     it; a checkpoint reads through its member first for the same reason.
//   - Close cancels the calls in flight: a call that fails once the engine
//     is closed reports storage.ErrClosed, and a scan checks before every
//     row, so it yields nothing after Close.
//   - A response row is checked to lie in the range asked for before it is
//     yielded (ErrProtocol otherwise): a misbehaving server cannot hand one
//     tenant another's rows.
//
// The engine does not use etcd authentication or TLS; the members of
// package cluster listen on loopback only.
package etcd
