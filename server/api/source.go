package api

import (
	"context"
	"log/slog"
	"math"

	"connectrpc.com/connect"

	"telha.dev/core/storage"
	telhav1 "telha.dev/server/gen/telha/v1"
	"telha.dev/server/gen/telha/v1/telhav1connect"
	"telha.dev/sources"
)

// Source serves telha.v1.SourceService.
type Source struct {
	sources *sources.Store
	limits  Limits
	log     *slog.Logger
}

var _ telhav1connect.SourceServiceHandler = (*Source)(nil)

// NewSource returns the service over store.
func NewSource(store *sources.Store, limits Limits, log *slog.Logger) *Source {
	return &Source{sources: store, limits: limits.WithDefaults(), log: log}
}

// PutSource stores a document.
func (s *Source) PutSource(ctx context.Context, req *connect.Request[telhav1.PutSourceRequest]) (*connect.Response[telhav1.PutSourceResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	b, created, err := s.sources.IngestBytes(sc, req.Msg.GetText())
	if err != nil {
		return nil, classified(s.log, "PutSource", err)
	}
	return connect.NewResponse(&telhav1.PutSourceResponse{Source: source(b), Created: created}), nil
}

// GetSource reads a document and a range of its text, at most
// MaxReadBytes of it.
func (s *Source) GetSource(ctx context.Context, req *connect.Request[telhav1.GetSourceRequest]) (*connect.Response[telhav1.GetSourceResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := parseID("id", m.GetId())
	if err != nil {
		return nil, err
	}
	b, err := s.sources.Stat(sc, id)
	if err != nil {
		return nil, classified(s.log, "GetSource", err)
	}
	start, end := m.GetStart(), m.GetEnd()
	if end == 0 {
		end = b.Len
	}
	if start < 0 || start > end || end > b.Len {
		return nil, invalid("start, end: [%d, %d) is not a range of the document's %d bytes", m.GetStart(), m.GetEnd(), b.Len)
	}
	end = min(end, start+int64(s.limits.MaxReadBytes))
	text, err := s.sources.ReadRange(sc, id, start, end)
	if err != nil {
		return nil, classified(s.log, "GetSource", err)
	}
	return connect.NewResponse(&telhav1.GetSourceResponse{Source: source(b), Text: text, End: end}), nil
}

// RecordFacts records facts asserted from a passage.
func (s *Source) RecordFacts(ctx context.Context, req *connect.Request[telhav1.RecordFactsRequest]) (*connect.Response[telhav1.RecordFactsResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	sp, err := spanOf(m.GetSpan())
	if err != nil {
		return nil, err
	}
	if len(m.GetFacts()) == 0 {
		return nil, invalid("facts: want at least one")
	}
	if len(m.GetFacts()) > s.limits.MaxBatch {
		return nil, exhausted("facts: %d, over the limit of %d", len(m.GetFacts()), s.limits.MaxBatch)
	}
	facts := make([]sources.Fact, len(m.GetFacts()))
	for i, f := range m.GetFacts() {
		if facts[i], err = factOf(f); err != nil {
			return nil, err
		}
	}
	if err := s.sources.Record(sc, sp, facts...); err != nil {
		return nil, classified(s.log, "RecordFacts", err)
	}
	return connect.NewResponse(&telhav1.RecordFactsResponse{}), nil
}

// Facts lists the passages of a document that overlap a range.
func (s *Source) Facts(ctx context.Context, req *connect.Request[telhav1.FactsRequest]) (*connect.Response[telhav1.FactsResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := parseID("source", m.GetSource())
	if err != nil {
		return nil, err
	}
	n, err := s.limits.pageSize(m.GetPageSize())
	if err != nil {
		return nil, err
	}
	start, end, err := factRange(m.GetStart(), m.GetEnd())
	if err != nil {
		return nil, err
	}
	ps, err := s.sources.Facts(sc, id, start, end)
	if err != nil {
		return nil, classified(s.log, "Facts", err)
	}
	return connect.NewResponse(&telhav1.FactsResponse{Passages: provenances(ps, n), Truncated: len(ps) > n}), nil
}

// Passages lists the passages a node or an edge was asserted from.
func (s *Source) Passages(ctx context.Context, req *connect.Request[telhav1.PassagesRequest]) (*connect.Response[telhav1.PassagesResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	id, err := parseID("id", req.Msg.GetId())
	if err != nil {
		return nil, err
	}
	n, err := s.limits.pageSize(req.Msg.GetPageSize())
	if err != nil {
		return nil, err
	}
	ps, err := s.sources.Passages(sc, id)
	if err != nil {
		return nil, classified(s.log, "Passages", err)
	}
	return connect.NewResponse(&telhav1.PassagesResponse{Passages: provenances(ps, n), Truncated: len(ps) > n}), nil
}

// factRange returns the range of a facts query: end 0 is the end of the
// document.
func factRange(start, end int64) (uint64, uint64, error) {
	switch {
	case start < 0 || end < 0:
		return 0, 0, invalid("start, end: [%d, %d) has a negative offset", start, end)
	case end == 0:
		return uint64(start), math.MaxUint64, nil
	case start >= end:
		return 0, 0, invalid("start, end: [%d, %d) is empty", start, end)
	}
	return uint64(start), uint64(end), nil
}

// spanOf returns a request's span in the store's terms.
func spanOf(sp *telhav1.Span) (sources.Span, error) {
	if sp == nil {
		return sources.Span{}, invalid("span: want the passage the facts came from")
	}
	id, err := parseID("span.source", sp.GetSource())
	if err != nil {
		return sources.Span{}, err
	}
	if sp.GetStart() < 0 || sp.GetEnd() <= sp.GetStart() {
		return sources.Span{}, invalid("span: [%d, %d) is not a passage", sp.GetStart(), sp.GetEnd())
	}
	return sources.Span{Source: id, Start: uint64(sp.GetStart()), End: uint64(sp.GetEnd())}, nil
}

// factKinds are the store's kinds of the wire's fact kinds.
var factKinds = map[telhav1.FactKind]storage.IndexKind{
	telhav1.FactKind_FACT_KIND_NODE: storage.IndexNode,
	telhav1.FactKind_FACT_KIND_EDGE: storage.IndexEdge,
}

// factOf returns a request's fact in the store's terms: the version it
// names must be named whole (kind, id, valid and recording time).
func factOf(f *telhav1.Fact) (sources.Fact, error) {
	kind, ok := factKinds[f.GetKind()]
	if !ok {
		return sources.Fact{}, invalid("fact kind: want NODE or EDGE")
	}
	id, err := parseID("fact id", f.GetId())
	if err != nil {
		return sources.Fact{}, err
	}
	if f.GetValidFrom() == nil || f.GetRecordedAt() == nil {
		return sources.Fact{}, invalid("fact %s: want the version's valid_from and recorded_at", id)
	}
	for _, ts := range []interface{ CheckValid() error }{f.GetValidFrom(), f.GetRecordedAt()} {
		if err := ts.CheckValid(); err != nil {
			return sources.Fact{}, invalid("fact %s: %v", id, err)
		}
	}
	return sources.Fact{Kind: kind, ID: id, ValidStart: storage.TimestampOf(f.GetValidFrom().AsTime()),
		TxStart: storage.TimestampOf(f.GetRecordedAt().AsTime())}, nil
}

// source returns b on the wire.
func source(b sources.Blob) *telhav1.Source {
	return &telhav1.Source{Id: b.ID.String(), Length: b.Len, TextLength: b.TextLen(), IngestedAt: timestamp(b.Ingested),
		TextHash: b.TextHash[:], Redacted: len(b.Redacted) > 0}
}

// provenances returns the first n of ps on the wire.
func provenances(ps []sources.Provenance, n int) []*telhav1.Provenance {
	out := make([]*telhav1.Provenance, 0, min(n, len(ps)))
	for _, p := range ps[:min(n, len(ps))] {
		w := &telhav1.Provenance{Span: &telhav1.Span{Source: p.Span.Source.String(), Start: int64(p.Span.Start), End: int64(p.Span.End)}}
		for _, f := range p.Facts {
			kind := telhav1.FactKind_FACT_KIND_NODE
			if f.Kind == storage.IndexEdge {
				kind = telhav1.FactKind_FACT_KIND_EDGE
			}
			w.Facts = append(w.Facts, &telhav1.Fact{Kind: kind, Id: f.ID.String(), ValidFrom: timestamp(f.ValidStart), RecordedAt: timestamp(f.TxStart)})
		}
		out = append(out, w)
	}
	return out
}
