// Package hnsw is a hierarchical navigable small world graph (Malkov and
// Yashunin, "Efficient and robust approximate nearest neighbor search using
// Hierarchical Navigable Small World graphs", 2016, arXiv:1603.09320), the
// approximate index of telha.dev/vector.
//
// The graph holds no vectors. Its nodes are dense ids 0, 1, 2, … (the slots
// of the caller's matrix), inserted in that order, and every distance comes
// from the caller: a Space between two stored points while inserting (and
// a Query from the new point, where the Space is a QuerySpace), a Query
// while searching. A walk hands the Query the unvisited links of a node
// together (Query.Distances), so that the caller can have their vectors
// fetched in parallel before it computes. So one matrix serves the exact scan and
// the graph, and the graph costs only its links: 4·2M bytes a node on
// level 0, about 4·(M+1)/(M-1) more for the upper levels and 9 of
// bookkeeping, 142 bytes at M = 16.
//
// # Filters and deletions
//
// Search takes an allow function and applies it during the walk, as ACORN
// does (see searchLevel): only allowed nodes are measured, explored and
// returned, a link to a rejected node is followed through it to that
// node's own links, and the walk goes on until it holds ef allowed nodes
// that nothing unexplored can beat. A filter the caller marks dense
// (Filter.Dense: it allows a large share of the nodes) is walked as
// hnswlib does instead: every neighbour is measured and explored, and
// rejected ones are left out of the answer only. A filter whose allowed nodes the walk
// cannot reach from the entry point yields fewer than ef; the caller then
// scans them exactly. Deleted points are the caller's business: it leaves
// them in the graph as waypoints and excludes them with the same allow
// function.
//
// # Concurrency
//
// One goroutine at a time may Add. Searches run beside it on a View, the
// graph as Graph.Snapshot found it (the caller takes the snapshot where
// no Add runs, and publishes it, as telha.dev/vector does through an
// atomic pointer). A View's nodes and levels are fixed; its link lists are
// the graph's own, which Add goes on rewriting: every count and link word
// is stored and loaded atomically, a link to a node the View does not hold
// is skipped, and a list read while Add rewrites it may mix its old and
// new links, each of them a real link of the graph at some moment. That
// changes which nodes a walk reaches, as a search that began an instant
// later would, never whether it is safe; hnswlib's searches see the same,
// one per-node lock at a time. A View stays valid however far the graph
// grows: when Add outgrows an array it moves to a new one, and the View
// keeps reading the old, which no longer changes.
//
// # Why not a library
//
// github.com/coder/hnsw (v0.6.1, the candidate pinned for this) was
// considered and not used: its Search takes no filter, so a filter could
// only be applied after the search, which loses most of the answer at 10%
// selectivity; a Graph is not safe for concurrent use; every node keeps a
// Go map of neighbours (far more memory than a flat link array, and
// pointers for the garbage collector to scan); it sorts each neighbour
// list on every step of a search; its search keeps k results rather than
// ef and stops at the first step that finds nothing nearer than its best,
// which costs recall; and its Delete repairs neighbourhoods with the
// cosine distance whatever the graph's.
// The float32 kernels do come from github.com/viterin/vek (AVX2 and FMA,
// plain Go elsewhere), through the caller's Query and Space.
//
// # Determinism
//
// Levels are drawn from a generator seeded by Config.Seed, and ties between
// equal distances are broken by id, so the same inserts build the same
// graph and the same search returns the same answer.
package hnsw
