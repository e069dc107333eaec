// Package graph answers graph queries over the bitemporal store of
// telha.dev/temporal: neighbours of a node, k-hop breadth-first traversal and
// shortest paths, each as of a valid time and a transaction time, within
// one tenant.
//
// Edges are written by temporal.Store (AssertEdge), which puts each edge
// version, its two temporal index rows and its adjacency_out and
// adjacency_in rows in one batch. The adjacency keys carry the xxh3 hash of
// the edge type name; temporal.EdgeTypeRegistry is the persisted, per-tenant
// registry of those names: a type is registered in the batch of its first
// edge, and a second name with an already registered hash is refused
// (ErrEdgeTypeCollision) rather than merged.
//
// Connectivity is read from the adjacency rows alone. Deleting a node ends
// its edges in the same batch (temporal.Store.DeleteNode), so a traversal
// never walks through a deleted node.
package graph
