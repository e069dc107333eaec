package api

import (
	"context"
	"log/slog"

	"connectrpc.com/connect"
	"github.com/google/uuid"

	"telha.dev/core/storage"
	telhav1 "telha.dev/server/gen/telha/v1"
	"telha.dev/server/gen/telha/v1/telhav1connect"
	"telha.dev/temporal"
	"telha.dev/vector"
	"telha.dev/vector/bitmap"
)

// Vector serves telha.v1.VectorService.
type Vector struct {
	engine  storage.Engine
	vectors *vector.Store
	bitmaps *bitmap.Index
	limits  Limits
	log     *slog.Logger
}

var _ telhav1connect.VectorServiceHandler = (*Vector)(nil)

// NewVector returns the service over vectors, filtered by bitmaps, both
// over engine (which the filter's queries read).
func NewVector(engine storage.Engine, vectors *vector.Store, bitmaps *bitmap.Index, limits Limits, log *slog.Logger) *Vector {
	return &Vector{engine: engine, vectors: vectors, bitmaps: bitmaps, limits: limits.WithDefaults(), log: log}
}

// Upsert stores the node's embedding from valid_from on, recorded now.
func (s *Vector) Upsert(ctx context.Context, req *connect.Request[telhav1.UpsertRequest]) (*connect.Response[telhav1.UpsertResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	id, err := parseID("id", m.GetId())
	if err != nil {
		return nil, err
	}
	from, err := validFrom("valid_from", m.GetValidFrom())
	if err != nil {
		return nil, err
	}
	if m.GetModel() == "" {
		return nil, invalid("model: want a registered model's name")
	}
	tx := storage.TimestampOf(timeNow())
	if err := s.vectors.Put(sc, id, m.GetModel(), from, tx, m.GetVector()); err != nil {
		return nil, classified(s.log, "Upsert", err)
	}
	return connect.NewResponse(&telhav1.UpsertResponse{RecordedAt: timestamp(tx)}), nil
}

// KNN returns the k nearest of the tenant's nodes, as of now.
func (s *Vector) KNN(ctx context.Context, req *connect.Request[telhav1.KNNRequest]) (*connect.Response[telhav1.KNNResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	m := req.Msg
	k, err := s.limits.k(m.GetK())
	if err != nil {
		return nil, err
	}
	q := vector.Query{Model: m.GetModel(), Vector: m.GetVector(), K: k, At: vector.Latest}
	if m.GetApproximate() {
		q.Method = vector.Approximate
	}
	if f := m.GetFilter(); f != nil {
		ids, err := s.filter(sc, f)
		if err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			return connect.NewResponse(&telhav1.KNNResponse{}), nil
		}
		q.Filter = &vector.Filter{IDs: ids}
	}
	hits, err := s.vectors.Search(sc, q)
	if err != nil {
		return nil, classified(s.log, "KNN", err)
	}
	out := &telhav1.KNNResponse{}
	for _, h := range hits {
		out.Hits = append(out.Hits, &telhav1.Hit{Node: h.Node.String(), Distance: h.Distance})
	}
	return connect.NewResponse(out), nil
}

// filter returns the nodes of sc that f selects.
func (s *Vector) filter(sc storage.TenantScope, f *telhav1.BitmapFilter) ([]uuid.UUID, error) {
	v, err := filterValue(f)
	if err != nil {
		return nil, err
	}
	ids, err := s.bitmaps.Equal(s.engine, sc, f.GetLabel(), f.GetProperty(), v)
	if err != nil {
		return nil, classified(s.log, "KNN filter", err)
	}
	return ids, nil
}

// filterValue returns the value a filter's nodes must equal.
func filterValue(f *telhav1.BitmapFilter) (temporal.Value, error) {
	switch e := f.GetEqual().(type) {
	case *telhav1.BitmapFilter_StringValue:
		return temporal.String(e.StringValue), nil
	case *telhav1.BitmapFilter_IntValue:
		return temporal.Int(e.IntValue), nil
	case *telhav1.BitmapFilter_FloatValue:
		return temporal.Float(e.FloatValue), nil
	case *telhav1.BitmapFilter_BoolValue:
		return temporal.Bool(e.BoolValue), nil
	case *telhav1.BitmapFilter_BytesValue:
		return temporal.Bytes(e.BytesValue), nil
	}
	return temporal.Value{}, invalid("filter: want one of its values to equal")
}
