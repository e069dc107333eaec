package api

import (
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"telha.dev/core/storage"
	telhav1 "telha.dev/server/gen/telha/v1"
	"telha.dev/temporal"
)

// timeNow is the wall clock of "now when absent".
var timeNow = time.Now

// timestamp returns t on the wire.
func timestamp(t storage.Timestamp) *timestamppb.Timestamp { return timestamppb.New(t.Time()) }

// openEnd returns t on the wire, or nil for Forever.
func openEnd(t storage.Timestamp) *timestamppb.Timestamp {
	if t == temporal.Forever {
		return nil
	}
	return timestamp(t)
}

// version returns v on the wire.
func version(v *temporal.Version) *telhav1.Version {
	out := &telhav1.Version{
		Id:           v.ID.String(),
		Labels:       v.Labels,
		ValidFrom:    timestamp(v.Valid.Start),
		ValidTo:      openEnd(v.Valid.End),
		RecordedAt:   timestamp(v.TxStart),
		SupersededAt: openEnd(v.TxEnd),
		Deleted:      v.Tombstone,
	}
	if p, ok := v.Props[valueProp]; ok && p.Kind == temporal.KindBytes {
		out.Value = p.Bytes
	}
	if v.Kind == temporal.EntityEdge {
		out.From, out.To, out.Type = v.From.String(), v.To.String(), v.Type
	}
	return out
}
