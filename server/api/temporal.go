package api

import (
	"context"
	"log/slog"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	"telha.dev/core/storage"
	telhav1 "telha.dev/server/gen/telha/v1"
	"telha.dev/server/gen/telha/v1/telhav1connect"
	"telha.dev/temporal"
)

// valueProp is the property that holds a version's value: the API's
// value bytes are one bytes property of the store's versions.
const valueProp = "value"

// Temporal serves telha.v1.TemporalService.
type Temporal struct {
	store  *temporal.Store
	limits Limits
	log    *slog.Logger
}

var _ telhav1connect.TemporalServiceHandler = (*Temporal)(nil)

// NewTemporal returns the service over store.
func NewTemporal(store *temporal.Store, limits Limits, log *slog.Logger) *Temporal {
	return &Temporal{store: store, limits: limits.WithDefaults(), log: log}
}

// validFrom returns a request's valid-time start: now when absent.
func validFrom(name string, ts *timestamppb.Timestamp) (storage.Timestamp, error) {
	if ts == nil {
		return storage.TimestampOf(timeNow()), nil
	}
	if err := ts.CheckValid(); err != nil {
		return 0, invalid("%s: %v", name, err)
	}
	return storage.TimestampOf(ts.AsTime()), nil
}

// readPoint returns the as-of point of a read: valid time as_of (now when
// absent) as known at known_at (everything known when absent).
func readPoint(asOf, knownAt *timestamppb.Timestamp) (temporal.AsOf, error) {
	v, err := validFrom("as_of", asOf)
	if err != nil {
		return temporal.AsOf{}, err
	}
	a := temporal.Current(v)
	if knownAt != nil {
		if err := knownAt.CheckValid(); err != nil {
			return temporal.AsOf{}, invalid("known_at: %v", err)
		}
		a.Tx = storage.TimestampOf(knownAt.AsTime())
	}
	return a, nil
}

// checkContent refuses a value or labels beyond the limits.
func (s *Temporal) checkContent(value []byte, labels []string) error {
	if len(value) > s.limits.MaxValueBytes {
		return exhausted("value: %d bytes, over the limit of %d", len(value), s.limits.MaxValueBytes)
	}
	if len(labels) > s.limits.MaxLabels {
		return exhausted("labels: %d, over the limit of %d", len(labels), s.limits.MaxLabels)
	}
	return nil
}

// props returns the properties that hold value.
func props(value []byte) temporal.Properties {
	if value == nil {
		return nil
	}
	return temporal.Properties{valueProp: temporal.Bytes(value)}
}

// PutNode asserts a node from valid_from on.
func (s *Temporal) PutNode(ctx context.Context, req *connect.Request[telhav1.PutNodeRequest]) (*connect.Response[telhav1.PutNodeResponse], error) {
	m := req.Msg
	id, err := parseID("id", m.GetId())
	if err != nil {
		return nil, err
	}
	tx, err := s.assert(ctx, "PutNode", m.GetValidFrom(), m.GetValue(), m.GetLabels(),
		func(sc storage.TenantScope, valid temporal.Interval, props temporal.Properties) (storage.Timestamp, error) {
			return s.store.AssertNode(sc, temporal.NodeFact{ID: id, Valid: valid, Labels: m.GetLabels(), Props: props})
		})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&telhav1.PutNodeResponse{RecordedAt: tx}), nil
}

// assert checks a write's valid_from, value and labels, and has write
// record the version valid from then on, with value, for the caller's
// tenant; it returns the recording time.
func (s *Temporal) assert(ctx context.Context, call string, validFromTS *timestamppb.Timestamp, value []byte, labels []string,
	write func(storage.TenantScope, temporal.Interval, temporal.Properties) (storage.Timestamp, error),
) (*timestamppb.Timestamp, error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	from, err := validFrom("valid_from", validFromTS)
	if err != nil {
		return nil, err
	}
	if err := s.checkContent(value, labels); err != nil {
		return nil, err
	}
	tx, err := write(sc, temporal.Interval{Start: from, End: temporal.Forever}, props(value))
	if err != nil {
		return nil, classified(s.log, call, err)
	}
	return timestamp(tx), nil
}

// GetNode reads the node's version at the request's point.
func (s *Temporal) GetNode(ctx context.Context, req *connect.Request[telhav1.GetNodeRequest]) (*connect.Response[telhav1.GetNodeResponse], error) {
	v, err := s.read(ctx, "GetNode", req.Msg.GetId(), req.Msg.GetAsOf(), req.Msg.GetKnownAt(), s.store.NodeAsOf)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&telhav1.GetNodeResponse{Version: v}), nil
}

// read returns the version that read finds of the entity id at the point
// (asOf, knownAt), for the caller's tenant.
func (s *Temporal) read(ctx context.Context, call, id string, asOf, knownAt *timestamppb.Timestamp,
	read func(storage.TenantScope, uuid.UUID, temporal.AsOf) (temporal.Version, error),
) (*telhav1.Version, error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	entity, err := parseID("id", id)
	if err != nil {
		return nil, err
	}
	a, err := readPoint(asOf, knownAt)
	if err != nil {
		return nil, err
	}
	v, err := read(sc, entity, a)
	if err != nil {
		return nil, classified(s.log, call, err)
	}
	return version(&v), nil
}

// DeleteNode ends the node's validity at valid_from.
func (s *Temporal) DeleteNode(ctx context.Context, req *connect.Request[telhav1.DeleteNodeRequest]) (*connect.Response[telhav1.DeleteNodeResponse], error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	id, err := parseID("id", req.Msg.GetId())
	if err != nil {
		return nil, err
	}
	from, err := validFrom("valid_from", req.Msg.GetValidFrom())
	if err != nil {
		return nil, err
	}
	tx, err := s.store.DeleteNode(sc, id, from)
	if err != nil {
		return nil, classified(s.log, "DeleteNode", err)
	}
	return connect.NewResponse(&telhav1.DeleteNodeResponse{RecordedAt: timestamp(tx)}), nil
}

// NodeHistory lists the node's versions, at most page_size.
func (s *Temporal) NodeHistory(ctx context.Context, req *connect.Request[telhav1.NodeHistoryRequest]) (*connect.Response[telhav1.NodeHistoryResponse], error) {
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
	vs, err := s.store.NodeHistory(sc, id)
	if err != nil {
		return nil, classified(s.log, "NodeHistory", err)
	}
	out := &telhav1.NodeHistoryResponse{Truncated: len(vs) > n}
	for i := range vs[:min(n, len(vs))] {
		out.Versions = append(out.Versions, version(&vs[i]))
	}
	return connect.NewResponse(out), nil
}

// PutEdge asserts an edge from valid_from on.
func (s *Temporal) PutEdge(ctx context.Context, req *connect.Request[telhav1.PutEdgeRequest]) (*connect.Response[telhav1.PutEdgeResponse], error) {
	m := req.Msg
	var ids [3]uuid.UUID
	for i, f := range []struct{ name, v string }{{"id", m.GetId()}, {"from", m.GetFrom()}, {"to", m.GetTo()}} {
		var err error
		if ids[i], err = parseID(f.name, f.v); err != nil {
			return nil, err
		}
	}
	tx, err := s.assert(ctx, "PutEdge", m.GetValidFrom(), m.GetValue(), m.GetLabels(),
		func(sc storage.TenantScope, valid temporal.Interval, props temporal.Properties) (storage.Timestamp, error) {
			return s.store.AssertEdge(sc, temporal.EdgeFact{ID: ids[0], From: ids[1], To: ids[2], Type: m.GetType(),
				Valid: valid, Labels: m.GetLabels(), Props: props})
		})
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&telhav1.PutEdgeResponse{RecordedAt: tx}), nil
}

// GetEdge reads the edge's version at the request's point.
func (s *Temporal) GetEdge(ctx context.Context, req *connect.Request[telhav1.GetEdgeRequest]) (*connect.Response[telhav1.GetEdgeResponse], error) {
	v, err := s.read(ctx, "GetEdge", req.Msg.GetId(), req.Msg.GetAsOf(), req.Msg.GetKnownAt(), s.store.EdgeAsOf)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&telhav1.GetEdgeResponse{Version: v}), nil
}
