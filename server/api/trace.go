package api

import (
	"context"
	"log/slog"

	"connectrpc.com/connect"
	"github.com/google/uuid"

	telhav1 "telha.dev/server/gen/telha/v1"
	"telha.dev/server/gen/telha/v1/telhav1connect"
	"telha.dev/sources"
)

// Trace serves telha.v1.TraceService.
type Trace struct {
	sources *sources.Store
	limits  Limits
	log     *slog.Logger
}

var _ telhav1connect.TraceServiceHandler = (*Trace)(nil)

// NewTrace returns the service over the traces of store.
func NewTrace(store *sources.Store, limits Limits, log *slog.Logger) *Trace {
	return &Trace{sources: store, limits: limits.WithDefaults(), log: log}
}

// RecordTrace stores a trace.
func (s *Trace) RecordTrace(ctx context.Context, req *connect.Request[telhav1.RecordTraceRequest]) (*connect.Response[telhav1.RecordTraceResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.traceOf(req.Msg.GetTrace())
	if err != nil {
		return nil, err
	}
	t, err = s.sources.RecordTrace(sc, t)
	if err != nil {
		return nil, classified(s.log, "RecordTrace", err)
	}
	return connect.NewResponse(&telhav1.RecordTraceResponse{Trace: trace(t)}), nil
}

// GetTrace reads one trace.
func (s *Trace) GetTrace(ctx context.Context, req *connect.Request[telhav1.GetTraceRequest]) (*connect.Response[telhav1.GetTraceResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	id, err := parseID("id", req.Msg.GetId())
	if err != nil {
		return nil, err
	}
	t, err := s.sources.Trace(sc, id)
	if err != nil {
		return nil, classified(s.log, "GetTrace", err)
	}
	return connect.NewResponse(&telhav1.GetTraceResponse{Trace: trace(t)}), nil
}

// ListTraces lists a page of traces after an id.
func (s *Trace) ListTraces(ctx context.Context, req *connect.Request[telhav1.ListTracesRequest]) (*connect.Response[telhav1.ListTracesResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	after := uuid.Nil
	if a := req.Msg.GetAfter(); a != "" {
		if after, err = parseID("after", a); err != nil {
			return nil, err
		}
	}
	n, err := s.limits.pageSize(req.Msg.GetPageSize())
	if err != nil {
		return nil, err
	}
	out := &telhav1.ListTracesResponse{}
	for t, err := range s.sources.Traces(sc, after) {
		if err != nil {
			return nil, classified(s.log, "ListTraces", err)
		}
		if len(out.Traces) == n {
			out.Next = out.Traces[n-1].Id
			break
		}
		out.Traces = append(out.Traces, trace(t))
	}
	return connect.NewResponse(out), nil
}

// traceOf returns a request's trace in the store's terms.
func (s *Trace) traceOf(w *telhav1.Trace) (sources.Trace, error) {
	if w == nil {
		return sources.Trace{}, invalid("trace: want the trace to record")
	}
	var t sources.Trace
	if w.GetId() != "" {
		id, err := parseID("trace.id", w.GetId())
		if err != nil {
			return sources.Trace{}, err
		}
		t.ID = id
	}
	at, err := validFrom("trace.as_of", w.GetAsOf())
	if err != nil {
		return sources.Trace{}, err
	}
	if len(w.GetResults()) > s.limits.MaxBatch {
		return sources.Trace{}, exhausted("trace.results: %d, over the limit of %d", len(w.GetResults()), s.limits.MaxBatch)
	}
	t.Query, t.AsOf, t.Params = w.GetQuery(), at, w.GetParams()
	for _, r := range w.GetResults() {
		id, err := parseID("trace.results", r)
		if err != nil {
			return sources.Trace{}, err
		}
		t.Results = append(t.Results, id)
	}
	return t, nil
}

// trace returns t on the wire.
func trace(t sources.Trace) *telhav1.Trace {
	out := &telhav1.Trace{Id: t.ID.String(), Query: t.Query, AsOf: timestamp(t.AsOf), Params: t.Params,
		RecordedAt: timestamp(t.Recorded)}
	for _, r := range t.Results {
		out.Results = append(out.Results, r.String())
	}
	return out
}
