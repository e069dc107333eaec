// Package hnsw is a hierarchical navigable small world graph (Malkov and
// Yashunin, "Efficient and robust approximate nearest neighbor search using
// Hierarchical Navigable Small World graphs", 2016, arXiv:1603.09320), the
// approximate index of telha.dev/vector.
//
// The graph holds no vectors. Its nodes are dense ids 0, 1, 2, … (the slots
// of the caller's matrix), inserted in that order, and every distance comes
// from the caller: a Space between two stored points while inserting, a
// query function while searching. So one matrix serves the exact scan and
// the graph, and the graph costs only its links: 4·2M bytes a node on
// level 0, about 4·(M+1)/(M-1) more for the upper levels and 6 of
// bookkeeping, 140 bytes at M = 16.
//
// # Filters and deletions
//
// Search takes an allow function and applies it during the walk, as
// hnswlib does: every node is traversed, so a filter never disconnects the
// graph, but only allowed nodes enter the result set, and the walk goes on
// until it holds ef allowed nodes that nothing unexplored can beat. Deleted
// points are the caller's business: it leaves them in the graph as
// waypoints and excludes them with the same allow function.
//
// # Concurrency
//
// A Graph is not safe for concurrent mutation. Add needs exclusive
// access; any number of Search calls may run together while no Add
// does (a sync.RWMutex of the caller is the intended guard).
//
// # Determinism
//
// Levels are drawn from a generator seeded by Config.Seed, and ties between
// equal distances are broken by id, so the same inserts build the same
// graph and the same search returns the same answer.
package hnsw
