package temporal

import (
	"fmt"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Direction selects outgoing or incoming edges of a node.
type Direction uint8

// The directions.
const (
	Out Direction = 1 // edges from the node: adjacency_out
	In  Direction = 2 // edges to the node: adjacency_in
)

func (d Direction) String() string {
	switch d {
	case Out:
		return "out"
	case In:
		return "in"
	}
	return fmt.Sprintf("Direction(%d)", uint8(d))
}

// Adjacent returns the edges of node in direction dir that are true at
// a.Valid as known at a.Tx, read from the adjacency rows alone (no lookup
// of the edge versions). With types non-empty only edges of those type
// hashes are returned. The order is by edge type hash, then latest valid
// start first.
func (s *Store) Adjacent(scope storage.TenantScope, node uuid.UUID, dir Direction, types []storage.EdgeTypeHash, a AsOf) ([]Adjacency, error) {
	if err := s.check(scope); err != nil {
		return nil, err
	}
	if dir != Out && dir != In {
		return nil, fmt.Errorf("adjacent of %s: direction %s: %w", node, dir, ErrInvalidFact)
	}
	var out []Adjacency
	err := scanAdjacency(s.engine, scope, node, dir, types, func(adj *Adjacency) bool {
		if adj.Valid.Contains(a.Valid) && adj.TxStart <= a.Tx && (adj.TxEnd == Forever || a.Tx < adj.TxEnd) {
			out = append(out, *adj)
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("adjacent %s of %s: %w", dir, node, err)
	}
	return out, nil
}

// scanAdjacency decodes every adjacency row of node in direction dir,
// restricted to types when non-empty, calling yield until it returns false.
func scanAdjacency(rd storage.Reader, scope storage.TenantScope, node uuid.UUID, dir Direction, types []storage.EdgeTypeHash, yield func(*Adjacency) bool) error {
	ranges := adjacencyRanges(scope, node, dir, types)
	decode := storage.DecodeAdjacencyOut
	if dir == In {
		decode = storage.DecodeAdjacencyIn
	}
	for _, r := range ranges {
		for kv, err := range rd.Scan(r) {
			if err != nil {
				return err
			}
			p, err := decode(kv.Key)
			if err != nil {
				return err
			}
			a := Adjacency{
				EdgeType: p.EdgeType, Neighbor: p.Neighbor, Direction: dir,
				Valid: Interval{Start: p.ValidStart}, TxStart: p.TxStart,
			}
			if err := decodeAdjacencyValue(kv.Value, &a); err != nil {
				return err
			}
			if !yield(&a) {
				return nil
			}
		}
	}
	return nil
}

func adjacencyRanges(scope storage.TenantScope, node uuid.UUID, dir Direction, types []storage.EdgeTypeHash) []storage.ScanRange {
	if len(types) == 0 {
		if dir == In {
			return []storage.ScanRange{storage.AdjacencyInRange(scope, node)}
		}
		return []storage.ScanRange{storage.AdjacencyOutRange(scope, node)}
	}
	out := make([]storage.ScanRange, 0, len(types))
	for _, t := range types {
		if dir == In {
			out = append(out, storage.AdjacencyInTypeRange(scope, node, t))
		} else {
			out = append(out, storage.AdjacencyOutTypeRange(scope, node, t))
		}
	}
	return out
}
