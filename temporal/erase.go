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

// EdgeErasure is what AddEdgeErasure found of an edge.
type EdgeErasure struct {
	// Endpoints are the nodes the edge's versions name, source first,
	// each once: their adjacency rows of the edge are erased, no other.
	Endpoints []uuid.UUID
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
	er := newEraser(r, b, scope)
	err := er.versions(id, storage.NodeVersions, func(v *Version) {
		out.Labels = append(out.Labels, v.Labels...)
	})
	if err != nil {
		return NodeErasure{}, fmt.Errorf("erase node %s: %w", id, err)
	}
	slices.Sort(out.Labels)
	out.Labels = slices.Compact(out.Labels)
	seen := make(map[uuid.UUID]bool)
	for _, dir := range []Direction{Out, In} {
		err := er.adjacency(id, dir, func(a *Adjacency) bool {
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
		if err := er.versions(edge, storage.EdgeVersions, nil); err != nil {
			return NodeErasure{}, fmt.Errorf("erase node %s: edge %s: %w", id, edge, err)
		}
	}
	out.Rows = len(er.deleted)
	return out, b.Err()
}

// AddEdgeErasure adds to b the deletion of every row the temporal store
// keeps of edge id in scope, and nothing else: every version (tombstones
// too) and its two temporal index rows, and the edge's adjacency rows in
// both directions, the out row under its source and the in row under its
// target, each with its mirror. The endpoints are read from every version
// (an edge's endpoints never change, but a damaged history is not trusted
// to say so); only rows whose edge is id are deleted, so the endpoints and
// their other edges stay. Like AddNodeErasure, this is physical erasure;
// nothing is written here.
func AddEdgeErasure(r storage.Reader, b *storage.Batch, scope storage.TenantScope, id uuid.UUID) (EdgeErasure, error) {
	if err := checkScope(scope); err != nil {
		return EdgeErasure{}, err
	}
	var out EdgeErasure
	var from, to []uuid.UUID
	er := newEraser(r, b, scope)
	err := er.versions(id, storage.EdgeVersions, func(v *Version) {
		if !slices.Contains(from, v.From) {
			from = append(from, v.From)
		}
		if !slices.Contains(to, v.To) {
			to = append(to, v.To)
		}
	})
	if err != nil {
		return EdgeErasure{}, fmt.Errorf("erase edge %s: %w", id, err)
	}
	for _, ends := range []struct {
		dir   Direction
		nodes []uuid.UUID
	}{{Out, from}, {In, to}} {
		for _, node := range ends.nodes {
			if !slices.Contains(out.Endpoints, node) {
				out.Endpoints = append(out.Endpoints, node)
			}
			if err := er.adjacency(node, ends.dir, func(a *Adjacency) bool { return a.Edge == id }); err != nil {
				return EdgeErasure{}, fmt.Errorf("erase edge %s: adjacency %s of %s: %w", id, ends.dir, node, err)
			}
		}
	}
	out.Rows = len(er.deleted)
	return out, b.Err()
}

// eraser adds the deletions of one erasure to a batch, each key once: a
// row reached twice (an adjacency row and its mirror, found from either
// endpoint) is deleted and counted once.
type eraser struct {
	r       storage.Reader
	b       *storage.Batch
	scope   storage.TenantScope
	deleted map[storage.Key]bool
}

func newEraser(r storage.Reader, b *storage.Batch, scope storage.TenantScope) *eraser {
	return &eraser{r: r, b: b, scope: scope, deleted: make(map[storage.Key]bool)}
}

// delete adds the deletion of k, unless it was added already.
func (er *eraser) delete(k storage.Key) {
	if !er.deleted[k] {
		er.deleted[k] = true
		er.b.Delete(k)
	}
}

// adjacency adds the deletion of every adjacency row of node in direction
// dir that match selects, with its mirror row under the other endpoint.
func (er *eraser) adjacency(node uuid.UUID, dir Direction, match func(*Adjacency) bool) error {
	return scanAdjacency(er.r, er.scope, node, dir, nil, func(a *Adjacency) bool {
		if !match(a) {
			return true
		}
		from, to := node, a.Neighbor
		if dir == In {
			from, to = a.Neighbor, node
		}
		er.delete(storage.AdjacencyOutKey(er.scope, from, a.EdgeType, a.Valid.Start, a.TxStart, to))
		er.delete(storage.AdjacencyInKey(er.scope, to, a.EdgeType, a.Valid.Start, a.TxStart, from))
		return true
	})
}

// versions adds the deletion of every version of entity id of family cf
// (node_versions or edge_versions) and of their index rows, and passes
// each decoded version to visit, if set.
func (er *eraser) versions(id uuid.UUID, cf storage.ColumnFamily, visit func(*Version)) error {
	history, kind, key := storage.NodeHistory, storage.IndexNode, storage.NodeVersionKey
	if cf == storage.EdgeVersions {
		history, kind, key = storage.EdgeHistory, storage.IndexEdge, storage.EdgeVersionKey
	}
	for kv, err := range er.r.Scan(history(er.scope, id)) {
		if err != nil {
			return err
		}
		p, err := storage.DecodeNodeVersion(kv.Key)
		if cf == storage.EdgeVersions {
			p, err = storage.DecodeEdgeVersion(kv.Key)
		}
		if err != nil {
			return err
		}
		v, err := DecodeValue(kv.Value)
		if err != nil {
			return fmt.Errorf("version at %s: %w", p.ValidStart, err)
		}
		if visit != nil {
			visit(&v)
		}
		er.delete(key(er.scope, id, p.ValidStart, p.TxStart))
		er.delete(storage.ValidTimeIndexKey(er.scope, p.ValidStart, p.TxStart, id, kind))
		er.delete(storage.TxTimeIndexKey(er.scope, p.TxStart, p.ValidStart, id, kind))
	}
	return nil
}
