package temporal

import (
	"fmt"
	"slices"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// NodeErasure is what AddNodeErasure found of a node.
type NodeErasure struct {
	// Labels are every label any version of the node carried, sorted: the
	// bitmap index keeps rows of the node under each.
	Labels []string
	// Edges are the edges incident to the node, either direction, whose
	// versions are erased with it.
	Edges []uuid.UUID
	// Rows is the number of rows whose deletion was added.
	Rows int
}

// AddNodeErasure adds to b the deletion of every row the temporal store
// keeps of node id in scope: every version (tombstones too) and its two
// temporal index rows; every adjacency row of the node in both directions
// and, for each, the mirror row stored under the other endpoint; and every
// version of each incident edge with its index rows, since an edge names
// both of its endpoints. This is physical erasure, not the tombstone of
// DeleteNode: the caller writes b durably (telha.dev/lifecycle records it
// in the erasure ledger and compacts). Nothing is written here.
func AddNodeErasure(r storage.Reader, b *storage.Batch, scope storage.TenantScope, id uuid.UUID) (NodeErasure, error) {
	if err := checkScope(scope); err != nil {
		return NodeErasure{}, err
	}
	var out NodeErasure
	labels, err := eraseVersions(r, b, scope, id, storage.NodeVersions, &out)
	if err != nil {
		return NodeErasure{}, fmt.Errorf("erase node %s: %w", id, err)
	}
	out.Labels = labels
	seen := make(map[uuid.UUID]bool)
	for _, dir := range []Direction{Out, In} {
		err := scanAdjacency(r, scope, id, dir, nil, func(a *Adjacency) bool {
			from, to := id, a.Neighbor
			if dir == In {
				from, to = a.Neighbor, id
			}
			b.Delete(storage.AdjacencyOutKey(scope, from, a.EdgeType, a.Valid.Start, a.TxStart, to))
			b.Delete(storage.AdjacencyInKey(scope, to, a.EdgeType, a.Valid.Start, a.TxStart, from))
			out.Rows += 2
			if !seen[a.Edge] {
				seen[a.Edge] = true
				out.Edges = append(out.Edges, a.Edge)
			}
			return true
		})
		if err != nil {
			return NodeErasure{}, fmt.Errorf("erase node %s: adjacency %s: %w", id, dir, err)
		}
	}
	for _, edge := range out.Edges {
		if _, err := eraseVersions(r, b, scope, edge, storage.EdgeVersions, &out); err != nil {
			return NodeErasure{}, fmt.Errorf("erase node %s: edge %s: %w", id, edge, err)
		}
	}
	return out, b.Err()
}

// eraseVersions adds the deletion of every version of entity id of family
// cf (node_versions or edge_versions) and of their index rows, and returns
// the labels the versions carried.
func eraseVersions(r storage.Reader, b *storage.Batch, scope storage.TenantScope, id uuid.UUID, cf storage.ColumnFamily, out *NodeErasure) ([]string, error) {
	history, kind, key := storage.NodeHistory, storage.IndexNode, storage.NodeVersionKey
	if cf == storage.EdgeVersions {
		history, kind, key = storage.EdgeHistory, storage.IndexEdge, storage.EdgeVersionKey
	}
	var labels []string
	for kv, err := range r.Scan(history(scope, id)) {
		if err != nil {
			return nil, err
		}
		p, err := storage.DecodeNodeVersion(kv.Key)
		if cf == storage.EdgeVersions {
			p, err = storage.DecodeEdgeVersion(kv.Key)
		}
		if err != nil {
			return nil, err
		}
		v, err := DecodeValue(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("version at %s: %w", p.ValidStart, err)
		}
		labels = append(labels, v.Labels...)
		b.Delete(key(scope, id, p.ValidStart, p.TxStart))
		b.Delete(storage.ValidTimeIndexKey(scope, p.ValidStart, p.TxStart, id, kind))
		b.Delete(storage.TxTimeIndexKey(scope, p.TxStart, p.ValidStart, id, kind))
		out.Rows += 3
	}
	slices.Sort(labels)
	return slices.Compact(labels), nil
}
