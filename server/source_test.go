package server

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage/storagetest"
)

// SourceService in Connect's JSON: a document reads back whole and by
// range, a second put of it is no new document, its facts and the
// passages of a node answer what was recorded; another tenant's document,
// facts and passages are not found or empty under A's token; bad ranges,
// spans and facts are typed errors.
func TestSourceJSON(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		w := newWire(t, env)
		a, b := w.tenants[0], w.tenants[1]
		text := "Minutes of " + a.marker + ": nothing else."
		var got struct {
			Source  struct{ ID string }
			Created bool
			Text    []byte
			End     string
		}
		decode(t, w.mustCall(t, a.token, "telha.v1.SourceService/PutSource", fmt.Sprintf(`{"text":%q}`, b64(text))), &got)
		if got.Created || got.Source.ID != a.source.String() {
			t.Errorf("PutSource of A's document again = %+v, want %s, not created", got, a.source)
		}
		decode(t, w.mustCall(t, a.token, "telha.v1.SourceService/GetSource", fmt.Sprintf(`{"id":%q}`, a.source)), &got)
		if string(got.Text) != text || got.End != fmt.Sprint(len(text)) {
			t.Errorf("GetSource = %q to %s, want %q to %d", got.Text, got.End, text, len(text))
		}
		decode(t, w.mustCall(t, a.token, "telha.v1.SourceService/GetSource", fmt.Sprintf(`{"id":%q,"start":3,"end":10}`, a.source)), &got)
		if string(got.Text) != text[3:10] {
			t.Errorf("GetSource [3, 10) = %q, want %q", got.Text, text[3:10])
		}
		facts := w.mustCall(t, a.token, "telha.v1.SourceService/Facts", fmt.Sprintf(`{"source":%q}`, a.source))
		if !bytes.Contains(facts, []byte(a.nodes[0].String())) || !bytes.Contains(facts, []byte(`"end":"10"`)) {
			t.Errorf("Facts of A's document = %s, want the fact of %s from [0, 10)", facts, a.nodes[0])
		}
		if out := w.mustCall(t, a.token, "telha.v1.SourceService/Facts", fmt.Sprintf(`{"source":%q,"start":10}`, a.source)); bytes.Contains(out, []byte(a.nodes[0].String())) {
			t.Errorf("Facts from 10 on = %s, want none: the passage ends at 10", out)
		}
		passages := w.mustCall(t, a.token, "telha.v1.SourceService/Passages", fmt.Sprintf(`{"id":%q}`, a.nodes[0]))
		if !bytes.Contains(passages, []byte(a.source.String())) {
			t.Errorf("Passages of %s = %s, want A's document", a.nodes[0], passages)
		}
		for _, c := range []struct{ proc, body string }{
			{"Facts", fmt.Sprintf(`{"source":%q}`, b.source)},
			{"Passages", fmt.Sprintf(`{"id":%q}`, b.nodes[0])},
		} {
			if out := w.mustCall(t, a.token, "telha.v1.SourceService/"+c.proc, c.body); string(out) != "{}" {
				t.Errorf("%s %s with A's token = %s, want nothing", c.proc, c.body, out)
			}
		}
		span := fmt.Sprintf(`"span":{"source":%q,"start":0,"end":5}`, a.source)
		fact := fmt.Sprintf(`{"kind":"FACT_KIND_EDGE","id":%q,"validFrom":"2020-01-01T00:00:00Z","recordedAt":"2020-01-01T00:00:00Z"}`, a.edge)
		w.expectCodes(t, a.token, "telha.v1.SourceService", []codeCase{
			{"GetSource", fmt.Sprintf(`{"id":%q}`, b.source), http.StatusNotFound},
			{"GetSource", fmt.Sprintf(`{"id":%q}`, uuid.New()), http.StatusNotFound},
			{"GetSource", fmt.Sprintf(`{"id":%q,"start":5,"end":3}`, a.source), http.StatusBadRequest},
			{"GetSource", fmt.Sprintf(`{"id":%q,"start":-1}`, a.source), http.StatusBadRequest},
			{"GetSource", fmt.Sprintf(`{"id":%q,"end":100000}`, a.source), http.StatusBadRequest},
			{"PutSource", fmt.Sprintf(`{"text":%q}`, "//79"), http.StatusBadRequest}, // not UTF-8
			{"RecordFacts", fmt.Sprintf(`{%s,"facts":[%s]}`, span, fact), http.StatusOK},
			{"RecordFacts", fmt.Sprintf(`{"span":{"source":%q,"start":0,"end":5},"facts":[%s]}`, b.source, fact), http.StatusNotFound},
			{"RecordFacts", fmt.Sprintf(`{"span":{"source":%q,"start":0,"end":100000},"facts":[%s]}`, a.source, fact), http.StatusBadRequest},
			{"RecordFacts", fmt.Sprintf(`{"span":{"source":%q,"start":5,"end":5},"facts":[%s]}`, a.source, fact), http.StatusBadRequest},
			{"RecordFacts", fmt.Sprintf(`{%s}`, span), http.StatusBadRequest},
			{"RecordFacts", fmt.Sprintf(`{"facts":[%s]}`, fact), http.StatusBadRequest},
			{"RecordFacts", fmt.Sprintf(`{%s,"facts":[{"kind":"FACT_KIND_NODE","id":%q}]}`, span, a.nodes[0]), http.StatusBadRequest},
			{"RecordFacts", fmt.Sprintf(`{%s,"facts":[{"id":%q,"validFrom":"2020-01-01T00:00:00Z","recordedAt":"2020-01-01T00:00:00Z"}]}`, span, a.nodes[0]), http.StatusBadRequest},
			{"Facts", fmt.Sprintf(`{"source":%q,"start":5,"end":5}`, a.source), http.StatusBadRequest},
			{"Facts", fmt.Sprintf(`{"source":%q,"pageSize":100000}`, a.source), http.StatusTooManyRequests},
		})
	})
}
