// Package mcp serves the Model Context Protocol endpoint of the tenant
// API (streamable HTTP at /mcp): tools an agent calls on its tenant's
// data. It serves requests, so every scope it uses is the principal's
// (auth.From), which the server's middleware put in the request's
// context after checking the same bearer token as the RPCs take.
//
// The endpoint is stateless: every HTTP request gets a server of its own
// whose tools are bound to that request's principal, so no session can
// outlive its credential or be taken over by another token.
package mcp

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"telha.dev/core/storage"
	"telha.dev/graph"
	"telha.dev/server/auth"
	"telha.dev/sources"
	"telha.dev/temporal"
	"telha.dev/vector"
)

// Backends are what the tools read, and the caps on what one call may
// ask for.
type Backends struct {
	Graph   *graph.Graph
	Vectors *vector.Store
	Sources *sources.Store
	// MaxNeighbours bounds the edges neighbours returns and the passages
	// facts returns; MaxK bounds knn's k.
	MaxNeighbours, MaxK int
}

// Handler returns the MCP endpoint over b. It must run behind the
// authentication middleware: a request without a principal gets no
// server.
func Handler(b Backends, maxBody int64) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		p, ok := auth.From(r.Context())
		if !ok {
			return nil
		}
		return newServer(b, p.Scope())
	}, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return http.MaxBytesHandler(h, maxBody)
}

// newServer returns a server whose tools read scope.
func newServer(b Backends, scope storage.TenantScope) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "telha", Version: "v1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "get_node", Description: "Read a node of your tenant as it is now: its labels and value."},
		func(_ context.Context, _ *sdk.CallToolRequest, in getNodeInput) (*sdk.CallToolResult, nodeOutput, error) {
			return getNode(b.Graph.Store(), scope, in)
		})
	sdk.AddTool(s, &sdk.Tool{Name: "neighbours", Description: "List the edges of a node of your tenant as they are now: the node at the other end, the edge, its type and direction."},
		func(_ context.Context, _ *sdk.CallToolRequest, in neighboursInput) (*sdk.CallToolResult, neighboursOutput, error) {
			return neighbours(b, scope, in)
		})
	sdk.AddTool(s, &sdk.Tool{Name: "knn", Description: "Find the k nodes of your tenant whose embeddings under a model are nearest to a vector, nearest first."},
		func(_ context.Context, _ *sdk.CallToolRequest, in knnInput) (*sdk.CallToolResult, knnOutput, error) {
			return knn(b, scope, in)
		})
	sdk.AddTool(s, &sdk.Tool{Name: "facts", Description: "List the passages of a document of your tenant that overlap a range of its text, each with the node and edge versions asserted from it."},
		func(_ context.Context, _ *sdk.CallToolRequest, in factsInput) (*sdk.CallToolResult, factsOutput, error) {
			return facts(b, scope, in)
		})
	return s
}

type getNodeInput struct {
	ID string `json:"id" jsonschema:"the node's id, a UUID"`
}

type nodeOutput struct {
	ID     string   `json:"id"`
	Labels []string `json:"labels,omitempty"`
	Value  []byte   `json:"value,omitempty"`
}

// errNotFound is the tool error of a read that finds nothing.
var errNotFound = errors.New("not found")

// errInternal is the tool error of a call that failed for another reason
// than its arguments; the reason is not the agent's to see.
var errInternal = errors.New("internal error")

// parseID parses a tool's id argument.
func parseID(s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil || id == uuid.Nil || len(s) != 36 {
		return uuid.Nil, errors.New("id: want a UUID in its 36-character form")
	}
	return id, nil
}

func getNode(store *temporal.Store, scope storage.TenantScope, in getNodeInput) (*sdk.CallToolResult, nodeOutput, error) {
	id, err := parseID(in.ID)
	if err != nil {
		return nil, nodeOutput{}, err
	}
	v, err := store.CurrentNode(scope, id)
	if errors.Is(err, temporal.ErrNotFound) {
		return nil, nodeOutput{}, errNotFound
	}
	if err != nil {
		return nil, nodeOutput{}, errInternal
	}
	out := nodeOutput{ID: v.ID.String(), Labels: v.Labels}
	if p, ok := v.Props["value"]; ok && p.Kind == temporal.KindBytes {
		out.Value = p.Bytes
	}
	return nil, out, nil
}
