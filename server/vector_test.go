package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage/storagetest"
)

// knnNodes returns the nodes of a KNN answer, nearest first.
func knnNodes(t *testing.T, out []byte) []string {
	t.Helper()
	var got struct{ Hits []struct{ Node string } }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("KNN answer %s: %v", out, err)
	}
	var nodes []string
	for _, h := range got.Hits {
		nodes = append(nodes, h.Node)
	}
	return nodes
}

// VectorService in Connect's JSON: KNN finds the caller's vectors only,
// nearest first, and a bitmap filter on a node property narrows it to
// the caller's matching nodes (another tenant's value selects nothing);
// an upsert is searched at once; k past the limit, a wrong dimension and
// an unknown model are typed errors.
func TestVectorJSON(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a, b := w.tenants[0], w.tenants[1]
		knn := func(body string) []string {
			return knnNodes(t, w.mustCall(t, a.token, "telha.v1.VectorService/KNN", body))
		}
		want := fmt.Sprint([]string{a.nodes[1].String(), a.nodes[0].String()})
		for _, body := range []string{
			fmt.Sprintf(`{"model":%q,"vector":[0.9],"k":10}`, testModel),
			fmt.Sprintf(`{"model":%q,"vector":[0.9],"k":10,"approximate":true}`, testModel),
			fmt.Sprintf(`{"model":%q,"vector":[0.9],"k":10,"filter":{"label":"Person","property":"value","bytesValue":%q}}`, testModel, b64(a.marker)),
		} {
			if got := fmt.Sprint(knn(body)); got != want {
				t.Errorf("KNN %s = %s, want A's nodes %s", body, got, want)
			}
		}
		if got := knn(fmt.Sprintf(`{"model":%q,"vector":[0.9],"k":10,"filter":{"label":"Person","property":"value","bytesValue":%q}}`, testModel, b64(b.marker))); len(got) != 0 {
			t.Errorf("KNN filtered on B's value with A's token = %v, want nothing", got)
		}
		id := uuid.New()
		w.mustCall(t, a.token, "telha.v1.VectorService/Upsert", fmt.Sprintf(`{"id":%q,"model":%q,"vector":[0.95]}`, id, testModel))
		if got := knn(fmt.Sprintf(`{"model":%q,"vector":[0.9],"k":1}`, testModel)); len(got) != 1 || got[0] != id.String() {
			t.Errorf("KNN after an upsert = %v, want %s", got, id)
		}
		if got := knnNodes(t, w.mustCall(t, b.token, "telha.v1.VectorService/KNN", fmt.Sprintf(`{"model":%q,"vector":[0.9],"k":10}`, testModel))); len(got) != 2 ||
			got[0] != b.nodes[1].String() || got[1] != b.nodes[0].String() {
			t.Errorf("B's KNN after A's upsert = %v, want B's two nodes", got)
		}
		w.expectCodes(t, a.token, "telha.v1.VectorService", []codeCase{
			{"KNN", fmt.Sprintf(`{"model":%q,"vector":[1],"k":100000}`, testModel), http.StatusTooManyRequests},
			{"KNN", fmt.Sprintf(`{"model":%q,"vector":[1]}`, testModel), http.StatusBadRequest},
			{"KNN", fmt.Sprintf(`{"model":%q,"vector":[1],"k":-1}`, testModel), http.StatusBadRequest},
			{"KNN", fmt.Sprintf(`{"model":%q,"vector":[1,2],"k":1}`, testModel), http.StatusBadRequest},
			{"KNN", `{"model":"no-such-model","vector":[1],"k":1}`, http.StatusNotFound},
			{"KNN", fmt.Sprintf(`{"model":%q,"vector":[1],"k":1,"filter":{"label":"Person","property":"value"}}`, testModel), http.StatusBadRequest},
			{"Upsert", fmt.Sprintf(`{"id":%q,"model":%q,"vector":[1,2]}`, id, testModel), http.StatusBadRequest},
			{"Upsert", fmt.Sprintf(`{"id":%q,"model":"no-such-model","vector":[1]}`, id), http.StatusNotFound},
			{"Upsert", fmt.Sprintf(`{"id":%q,"vector":[1]}`, id), http.StatusBadRequest},
		})
	})
}
