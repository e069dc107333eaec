package server

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage/storagetest"
)

// TraceService in Connect's JSON: a trace reads back as recorded, lists
// page by page in the order recorded, is never rewritten; another
// tenant's trace is not found under A's token and not in A's list.
func TestTraceJSON(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a, b := w.tenants[0], w.tenants[1]
		got := w.mustCall(t, a.token, "telha.v1.TraceService/GetTrace", fmt.Sprintf(`{"id":%q}`, a.trace))
		for _, want := range []string{a.marker, a.nodes[0].String(), a.nodes[1].String(), `"graph.neighbours"`} {
			if !bytes.Contains(got, []byte(want)) {
				t.Errorf("GetTrace of A's trace = %s, want %s in it", got, want)
			}
		}
		chosen := uuid.New()
		w.mustCall(t, a.token, "telha.v1.TraceService/RecordTrace", fmt.Sprintf(`{"trace":{"id":%q,"query":"vector.knn","asOf":"2021-06-01T00:00:00Z"}}`, chosen))
		var page struct {
			Traces []struct{ ID string }
			Next   string
		}
		var listed []string
		for after := ""; ; after = page.Next {
			page.Next = ""
			decode(t, w.mustCall(t, a.token, "telha.v1.TraceService/ListTraces", fmt.Sprintf(`{"after":%q,"pageSize":1}`, after)), &page)
			for _, tr := range page.Traces {
				listed = append(listed, tr.ID)
			}
			if page.Next == "" {
				break
			}
		}
		if len(listed) != 2 || !slices.Contains(listed, a.trace.String()) || !slices.Contains(listed, chosen.String()) {
			t.Errorf("ListTraces of A page by page = %v, want %s and %s", listed, a.trace, chosen)
		}
		w.expectCodes(t, a.token, "telha.v1.TraceService", []codeCase{
			{"GetTrace", fmt.Sprintf(`{"id":%q}`, b.trace), http.StatusNotFound},
			{"RecordTrace", fmt.Sprintf(`{"trace":{"id":%q,"query":"again"}}`, chosen), http.StatusConflict},
			{"RecordTrace", `{"trace":{}}`, http.StatusBadRequest},
			{"RecordTrace", `{}`, http.StatusBadRequest},
			{"RecordTrace", `{"trace":{"query":"q","params":{"":"x"}}}`, http.StatusBadRequest},
			{"RecordTrace", `{"trace":{"query":"q","results":["not-a-uuid"]}}`, http.StatusBadRequest},
			{"ListTraces", `{"after":"not-a-uuid"}`, http.StatusBadRequest},
			{"ListTraces", `{"pageSize":100000}`, http.StatusTooManyRequests},
		})
		// B's trace under B's own id is untouched by A's record of it.
		w.mustCall(t, a.token, "telha.v1.TraceService/RecordTrace", fmt.Sprintf(`{"trace":{"id":%q,"query":"forged"}}`, b.trace))
		if got := w.mustCall(t, b.token, "telha.v1.TraceService/GetTrace", fmt.Sprintf(`{"id":%q}`, b.trace)); !bytes.Contains(got, []byte(b.marker)) {
			t.Errorf("B's trace after A recorded one of its id = %s, want B's", got)
		}
	})
}
