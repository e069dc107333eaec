package api

import (
	"context"
	"log/slog"

	"connectrpc.com/connect"
	"github.com/google/uuid"

	"telha.dev/graph"
	telhav1 "telha.dev/server/gen/telha/v1"
	"telha.dev/server/gen/telha/v1/telhav1connect"
)

// Graph serves telha.v1.GraphService.
type Graph struct {
	graph  *graph.Graph
	limits Limits
	log    *slog.Logger
}

var _ telhav1connect.GraphServiceHandler = (*Graph)(nil)

// NewGraph returns the service over g.
func NewGraph(g *graph.Graph, limits Limits, log *slog.Logger) *Graph {
	return &Graph{graph: g, limits: limits.WithDefaults(), log: log}
}

// direction returns d in graph's terms: unspecified is both.
func direction(d telhav1.Direction) (graph.Direction, error) {
	switch d {
	case telhav1.Direction_DIRECTION_UNSPECIFIED, telhav1.Direction_DIRECTION_BOTH:
		return graph.Both, nil
	case telhav1.Direction_DIRECTION_OUT:
		return graph.Out, nil
	case telhav1.Direction_DIRECTION_IN:
		return graph.In, nil
	}
	return 0, invalid("direction: %d is no direction", d)
}

// neighbour returns n on the wire.
func neighbour(n graph.Neighbor) *telhav1.Neighbour {
	d := telhav1.Direction_DIRECTION_OUT
	if n.Direction == graph.In {
		d = telhav1.Direction_DIRECTION_IN
	}
	return &telhav1.Neighbour{Node: n.Node.String(), Edge: n.Edge.String(), Type: n.Type, Direction: d}
}

// traversal checks a traversal request's direction, depth and page size.
func (s *Graph) traversal(dir telhav1.Direction, types []string, depth, pageSize int32) (graph.Traversal, error) {
	d, err := direction(dir)
	if err != nil {
		return graph.Traversal{}, err
	}
	maxDepth, err := s.limits.depth(depth)
	if err != nil {
		return graph.Traversal{}, err
	}
	visited, err := s.limits.pageSize(pageSize)
	if err != nil {
		return graph.Traversal{}, err
	}
	if len(types) > s.limits.MaxLabels {
		return graph.Traversal{}, exhausted("types: %d, over the limit of %d", len(types), s.limits.MaxLabels)
	}
	return graph.Traversal{Direction: d, Types: types, MaxDepth: maxDepth, MaxVisited: visited}, nil
}

// Neighbours lists the node's edges at the request's point.
func (s *Graph) Neighbours(ctx context.Context, req *connect.Request[telhav1.NeighboursRequest]) (*connect.Response[telhav1.NeighboursResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := parseID("id", m.GetId())
	if err != nil {
		return nil, err
	}
	t, err := s.traversal(m.GetDirection(), m.GetTypes(), 1, m.GetPageSize())
	if err != nil {
		return nil, err
	}
	a, err := readPoint(m.GetAsOf(), m.GetKnownAt())
	if err != nil {
		return nil, err
	}
	ns, err := s.graph.Neighbors(sc, id, t.Direction, a, t.Types...)
	if err != nil {
		return nil, classified(s.log, "Neighbours", err)
	}
	out := &telhav1.NeighboursResponse{Truncated: len(ns) > t.MaxVisited}
	for _, n := range ns[:min(t.MaxVisited, len(ns))] {
		out.Neighbours = append(out.Neighbours, neighbour(n))
	}
	return connect.NewResponse(out), nil
}

// KHop walks breadth-first from the node within the request's limits.
func (s *Graph) KHop(ctx context.Context, req *connect.Request[telhav1.KHopRequest]) (*connect.Response[telhav1.KHopResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := parseID("id", m.GetId())
	if err != nil {
		return nil, err
	}
	t, err := s.traversal(m.GetDirection(), m.GetTypes(), m.GetDepth(), m.GetPageSize())
	if err != nil {
		return nil, err
	}
	a, err := readPoint(m.GetAsOf(), m.GetKnownAt())
	if err != nil {
		return nil, err
	}
	visits, truncated, err := s.graph.KHop(sc, id, a, t)
	if err != nil {
		return nil, classified(s.log, "KHop", err)
	}
	out := &telhav1.KHopResponse{Truncated: truncated}
	for _, v := range visits {
		w := &telhav1.Visit{Node: v.Node.String(), Depth: int32(v.Depth)}
		if v.Parent != uuid.Nil {
			w.Via, w.Parent = neighbour(v.Via), v.Parent.String()
		}
		out.Visits = append(out.Visits, w)
	}
	return connect.NewResponse(out), nil
}

// ShortestPath finds a shortest path within the request's limits.
func (s *Graph) ShortestPath(ctx context.Context, req *connect.Request[telhav1.ShortestPathRequest]) (*connect.Response[telhav1.ShortestPathResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	from, err := parseID("from", m.GetFrom())
	if err != nil {
		return nil, err
	}
	to, err := parseID("to", m.GetTo())
	if err != nil {
		return nil, err
	}
	t, err := s.traversal(m.GetDirection(), m.GetTypes(), m.GetDepth(), m.GetPageSize())
	if err != nil {
		return nil, err
	}
	a, err := readPoint(m.GetAsOf(), m.GetKnownAt())
	if err != nil {
		return nil, err
	}
	path, err := s.graph.ShortestPath(sc, from, to, a, t)
	if err != nil {
		return nil, classified(s.log, "ShortestPath", err)
	}
	out := &telhav1.ShortestPathResponse{}
	for _, n := range path {
		out.Edges = append(out.Edges, neighbour(n))
	}
	return connect.NewResponse(out), nil
}
