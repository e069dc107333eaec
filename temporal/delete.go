package temporal

import (
	"fmt"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// DeleteNode ends node id at valid time from: a tombstone version covers
// [from, Forever), superseding what was known there, and every edge of the
// node still known to be valid at or after from is ended the same way,
// which rewrites its adjacency rows in both directions. Everything lands in
// one durable batch, so an acknowledged delete survives a crash.
//
// Each ended edge gets its own transaction time, all below the node's,
// which DeleteNode returns: an edge never has two versions with one
// (valid start, tx start), and as of the node's transaction time the whole
// cascade is visible.
func (s *Store) DeleteNode(scope storage.TenantScope, id uuid.UUID, from storage.Timestamp) (storage.Timestamp, error) {
	if id == uuid.Nil {
		return 0, fmt.Errorf("delete node with nil id: %w", ErrInvalidFact)
	}
	if err := (Interval{from, Forever}).Check(); err != nil {
		return 0, fmt.Errorf("delete node %s: %w", id, err)
	}
	return s.write(scope, true, "delete node "+id.String(), func(w *writer) (storage.Timestamp, error) {
		if err := w.requireNode(id); err != nil {
			return 0, err
		}
		edges, err := w.incidentEdges(id, from)
		if err != nil {
			return 0, err
		}
		for _, e := range edges {
			if _, err := w.deleteEdge(e, from); err != nil {
				return 0, err
			}
		}
		return w.node(Version{Kind: EntityNode, ID: id, Valid: Interval{from, Forever}, TxEnd: Forever, Tombstone: true})
	})
}

// incidentEdges returns the ids of the edges of node, either direction, of
// which a version still known is valid at some time at or after from, in
// the order first met.
func (w *writer) incidentEdges(node uuid.UUID, from storage.Timestamp) ([]uuid.UUID, error) {
	var out []uuid.UUID
	seen := make(map[uuid.UUID]bool)
	for _, dir := range []Direction{Out, In} {
		err := scanAdjacency(w.s.engine, w.scope, node, dir, nil, func(a *Adjacency) bool {
			if a.TxEnd == Forever && a.Valid.End > from && !seen[a.Edge] {
				seen[a.Edge] = true
				out = append(out, a.Edge)
			}
			return true
		})
		if err != nil {
			return nil, fmt.Errorf("edges of node %s: %w", node, err)
		}
	}
	return out, nil
}

// DeleteEdge ends edge id at valid time from with a tombstone over
// [from, Forever), and returns the transaction time.
func (s *Store) DeleteEdge(scope storage.TenantScope, id uuid.UUID, from storage.Timestamp) (storage.Timestamp, error) {
	return s.write(scope, true, "delete edge "+id.String(), func(w *writer) (storage.Timestamp, error) {
		return w.deleteEdge(id, from)
	})
}

// deleteEdge adds the tombstone of edge id over [from, Forever) to the batch
// at a new transaction time.
func (w *writer) deleteEdge(id uuid.UUID, from storage.Timestamp) (storage.Timestamp, error) {
	if err := (Interval{from, Forever}).Check(); err != nil {
		return 0, fmt.Errorf("delete edge %s: %w", id, err)
	}
	var last *Version
	err := scanVersions(w.s.engine, storage.EdgeHistory(w.scope, id), EntityEdge, func(v *Version) bool {
		last = v
		return false
	})
	if err != nil {
		return 0, fmt.Errorf("delete edge %s: %w", id, err)
	}
	if last == nil {
		return 0, fmt.Errorf("delete edge %s: %w", id, ErrUnknownEdge)
	}
	tx, err := w.s.clock.Next()
	if err != nil {
		return 0, fmt.Errorf("delete edge %s: %w", id, err)
	}
	tomb := Version{
		Kind: EntityEdge, ID: id, Valid: Interval{from, Forever}, TxEnd: Forever, Tombstone: true,
		From: last.From, To: last.To, Type: last.Type, TxStart: tx,
	}
	return tx, w.edge(tomb)
}
