package mcp

import (
	"errors"
	"math"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"telha.dev/core/storage"
	"telha.dev/sources"
)

type factsInput struct {
	Source string `json:"source" jsonschema:"the document's id, a UUID"`
	Start  int64  `json:"start,omitempty" jsonschema:"the first byte of the range, an offset of the original text (default 0)"`
	End    int64  `json:"end,omitempty" jsonschema:"the byte after the range (default: the end of the document)"`
}

type fact struct {
	Kind       string `json:"kind"` // node or edge
	ID         string `json:"id"`
	ValidFrom  string `json:"valid_from"`
	RecordedAt string `json:"recorded_at"`
}

type passage struct {
	Start int64  `json:"start"`
	End   int64  `json:"end"`
	Facts []fact `json:"facts"`
}

type factsOutput struct {
	Passages []passage `json:"passages"`
	// Truncated: more passages overlap the range than the server returns.
	Truncated bool `json:"truncated,omitempty"`
}

func facts(b Backends, scope storage.TenantScope, in factsInput) (*sdk.CallToolResult, factsOutput, error) {
	id, err := parseID(in.Source)
	if err != nil {
		return nil, factsOutput{}, err
	}
	end := uint64(math.MaxUint64)
	switch {
	case in.Start < 0 || in.End < 0 || (in.End != 0 && in.End <= in.Start):
		return nil, factsOutput{}, errors.New("start, end: want 0 <= start < end")
	case in.End != 0:
		end = uint64(in.End)
	}
	ps, err := b.Sources.Facts(scope, id, uint64(in.Start), end)
	switch {
	case errors.Is(err, sources.ErrNoBlob), errors.Is(err, sources.ErrDeleted):
		return nil, factsOutput{}, errNotFound
	case err != nil:
		return nil, factsOutput{}, errInternal
	}
	out := factsOutput{Passages: []passage{}, Truncated: len(ps) > b.MaxNeighbours}
	for _, p := range ps[:min(len(ps), b.MaxNeighbours)] {
		w := passage{Start: int64(p.Span.Start), End: int64(p.Span.End), Facts: []fact{}}
		for _, f := range p.Facts {
			kind := "node"
			if f.Kind == storage.IndexEdge {
				kind = "edge"
			}
			w.Facts = append(w.Facts, fact{Kind: kind, ID: f.ID.String(), ValidFrom: f.ValidStart.String(), RecordedAt: f.TxStart.String()})
		}
		out.Passages = append(out.Passages, w)
	}
	return nil, out, nil
}
