package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"telha.dev/core/storage/storagetest"
)

// GraphService in Connect's JSON: a tenant's neighbours, walk and path
// over its own edge; another tenant's ids find nothing; depth and page
// size past the limits are typed errors.
func TestGraphJSON(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a, b := w.tenants[0], w.tenants[1]
		out := w.mustCall(t, a.token, "telha.v1.GraphService/Neighbours", fmt.Sprintf(`{"id":%q,"direction":"DIRECTION_OUT"}`, a.nodes[0]))
		var ns struct {
			Neighbours []struct{ Node, Edge, Type, Direction string }
		}
		if err := json.Unmarshal(out, &ns); err != nil || len(ns.Neighbours) != 1 || ns.Neighbours[0].Node != a.nodes[1].String() ||
			ns.Neighbours[0].Edge != a.edge.String() || ns.Neighbours[0].Type != "knows" || ns.Neighbours[0].Direction != "DIRECTION_OUT" {
			t.Fatalf("Neighbours of A's first node = %s (%v), want its edge to the second", out, err)
		}
		out = w.mustCall(t, a.token, "telha.v1.GraphService/Neighbours", fmt.Sprintf(`{"id":%q}`, b.nodes[0]))
		if string(out) != `{}` {
			t.Errorf("Neighbours of B's node with A's token = %s, want none", out)
		}
		out = w.mustCall(t, a.token, "telha.v1.GraphService/KHop", fmt.Sprintf(`{"id":%q,"depth":2}`, a.nodes[1]))
		var kh struct {
			Visits []struct {
				Node, Parent string
				Depth        int
			}
		}
		if err := json.Unmarshal(out, &kh); err != nil || len(kh.Visits) != 2 || kh.Visits[1].Node != a.nodes[0].String() || kh.Visits[1].Parent != a.nodes[1].String() {
			t.Fatalf("KHop from A's second node = %s (%v), want it and the first", out, err)
		}
		out = w.mustCall(t, a.token, "telha.v1.GraphService/ShortestPath", fmt.Sprintf(`{"from":%q,"to":%q,"direction":"DIRECTION_OUT"}`, a.nodes[0], a.nodes[1]))
		var sp struct{ Edges []struct{ Edge string } }
		if err := json.Unmarshal(out, &sp); err != nil || len(sp.Edges) != 1 || sp.Edges[0].Edge != a.edge.String() {
			t.Fatalf("ShortestPath = %s (%v), want A's edge", out, err)
		}
		w.expectCodes(t, a.token, "telha.v1.GraphService", []codeCase{
			{"ShortestPath", fmt.Sprintf(`{"from":%q,"to":%q,"direction":"DIRECTION_IN"}`, a.nodes[0], a.nodes[1]), http.StatusNotFound},
			{"ShortestPath", fmt.Sprintf(`{"from":%q,"to":%q}`, a.nodes[0], b.nodes[1]), http.StatusNotFound},
			{"KHop", fmt.Sprintf(`{"id":%q}`, b.nodes[0]), http.StatusNotFound},
			{"KHop", fmt.Sprintf(`{"id":%q,"depth":100}`, a.nodes[0]), http.StatusTooManyRequests},
			{"KHop", fmt.Sprintf(`{"id":%q,"depth":-1}`, a.nodes[0]), http.StatusBadRequest},
			{"KHop", fmt.Sprintf(`{"id":%q,"pageSize":100000}`, a.nodes[0]), http.StatusTooManyRequests},
			{"Neighbours", fmt.Sprintf(`{"id":%q,"pageSize":-5}`, a.nodes[0]), http.StatusBadRequest},
			{"Neighbours", fmt.Sprintf(`{"id":%q,"direction":9}`, a.nodes[0]), http.StatusBadRequest},
		})
	})
}
