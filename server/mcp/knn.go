package mcp

import (
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"telha.dev/core/storage"
	"telha.dev/vector"
)

// timeNow is the wall clock of "as it is now".
var timeNow = time.Now

type knnInput struct {
	Model  string    `json:"model" jsonschema:"a registered embedding model's name"`
	Vector []float32 `json:"vector" jsonschema:"the query vector, of the model's dimension"`
	K      int       `json:"k" jsonschema:"how many nodes, at least 1"`
}

type hit struct {
	Node     string  `json:"node"`
	Distance float64 `json:"distance"`
}

type knnOutput struct {
	Hits []hit `json:"hits"`
}

func knn(b Backends, scope storage.TenantScope, in knnInput) (*sdk.CallToolResult, knnOutput, error) {
	if in.K < 1 || in.K > b.MaxK {
		return nil, knnOutput{}, fmt.Errorf("k: %d, want 1 to %d", in.K, b.MaxK)
	}
	hits, err := b.Vectors.Search(scope, vector.Query{Model: in.Model, Vector: in.Vector, K: in.K, At: vector.Latest})
	switch {
	case errors.Is(err, vector.ErrUnknownModel):
		return nil, knnOutput{}, errors.New("model: no such model")
	case errors.Is(err, vector.ErrDimensionMismatch), errors.Is(err, vector.ErrInvalidVector):
		return nil, knnOutput{}, errors.New("vector: not a vector of the model")
	case err != nil:
		return nil, knnOutput{}, errInternal
	}
	out := knnOutput{Hits: []hit{}}
	for _, h := range hits {
		out.Hits = append(out.Hits, hit{Node: h.Node.String(), Distance: h.Distance})
	}
	return nil, out, nil
}
