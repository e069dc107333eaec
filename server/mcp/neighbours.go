package mcp

import (
	"errors"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"telha.dev/core/storage"
	"telha.dev/graph"
	"telha.dev/temporal"
)

type neighboursInput struct {
	ID        string `json:"id" jsonschema:"the node's id, a UUID"`
	Direction string `json:"direction,omitempty" jsonschema:"out, in or both (the default)"`
}

type neighbour struct {
	Node      string `json:"node"`
	Edge      string `json:"edge"`
	Type      string `json:"type"`
	Direction string `json:"direction"`
}

type neighboursOutput struct {
	Neighbours []neighbour `json:"neighbours"`
	// Truncated: the node has more edges than the server returns.
	Truncated bool `json:"truncated,omitempty"`
}

// directions are the tool's names of graph's directions.
var directions = map[string]graph.Direction{"": graph.Both, "both": graph.Both, "out": graph.Out, "in": graph.In}

func neighbours(b Backends, scope storage.TenantScope, in neighboursInput) (*sdk.CallToolResult, neighboursOutput, error) {
	id, err := parseID(in.ID)
	if err != nil {
		return nil, neighboursOutput{}, err
	}
	dir, ok := directions[in.Direction]
	if !ok {
		return nil, neighboursOutput{}, errors.New("direction: want out, in or both")
	}
	ns, err := b.Graph.Neighbors(scope, id, dir, temporal.Current(storage.TimestampOf(timeNow())))
	if err != nil {
		return nil, neighboursOutput{}, errInternal
	}
	out := neighboursOutput{Neighbours: []neighbour{}, Truncated: len(ns) > b.MaxNeighbours}
	for _, n := range ns[:min(len(ns), b.MaxNeighbours)] {
		d := "out"
		if n.Direction == graph.In {
			d = "in"
		}
		out.Neighbours = append(out.Neighbours, neighbour{Node: n.Node.String(), Edge: n.Edge.String(), Type: n.Type, Direction: d})
	}
	return nil, out, nil
}
