package api

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	"telha.dev/jobs"
	telhav1 "telha.dev/server/gen/telha/v1"
	"telha.dev/server/gen/telha/v1/telhav1connect"
)

// Job serves telha.v1.JobService over the tenants' queues.
type Job struct {
	jobs   *jobs.Store
	limits Limits
	log    *slog.Logger
}

var _ telhav1connect.JobServiceHandler = (*Job)(nil)

// NewJob returns the service over store.
func NewJob(store *jobs.Store, limits Limits, log *slog.Logger) *Job {
	return &Job{jobs: store, limits: limits.WithDefaults(), log: log}
}

// queue returns the queue of the caller's tenant.
func (s *Job) queue(ctx context.Context, call string) (*jobs.Queue, error) {
	sc, err := scope(ctx)
	if err != nil {
		return nil, err
	}
	q, err := s.jobs.Tenant(sc)
	if err != nil {
		return nil, classified(s.log, call, err)
	}
	return q, nil
}

// Enqueue queues a job.
func (s *Job) Enqueue(ctx context.Context, req *connect.Request[telhav1.EnqueueRequest]) (*connect.Response[telhav1.EnqueueResponse], error) {
	q, err := s.queue(ctx, "Enqueue")
	if err != nil {
		return nil, err
	}
	m := req.Msg
	if m.GetPriority() > 255 {
		return nil, invalid("priority: %d, want 0 to 255", m.GetPriority())
	}
	attempts := 0 // the store's default
	if m.GetMaxAttempts() != 0 {
		if attempts, err = capped("max_attempts", m.GetMaxAttempts(), s.limits.MaxAttempts); err != nil {
			return nil, err
		}
	}
	if len(m.GetPayload()) > s.limits.MaxValueBytes {
		return nil, exhausted("payload: %d bytes, over the limit of %d", len(m.GetPayload()), s.limits.MaxValueBytes)
	}
	j, err := q.Enqueue(m.GetPayload(), jobs.EnqueueOptions{Priority: jobs.Priority(m.GetPriority()), MaxAttempts: attempts})
	if err != nil {
		return nil, classified(s.log, "Enqueue", err)
	}
	return connect.NewResponse(&telhav1.EnqueueResponse{Job: job(j)}), nil
}

// Claim leases the first ready job to the request's owner.
func (s *Job) Claim(ctx context.Context, req *connect.Request[telhav1.ClaimRequest]) (*connect.Response[telhav1.ClaimResponse], error) {
	q, err := s.queue(ctx, "Claim")
	if err != nil {
		return nil, err
	}
	l, err := q.Claim(req.Msg.GetOwner())
	if err != nil {
		return nil, classified(s.log, "Claim", err)
	}
	return connect.NewResponse(&telhav1.ClaimResponse{Job: job(l.Job), Lease: l.Handle()}), nil
}

// Heartbeat extends a lease.
func (s *Job) Heartbeat(ctx context.Context, req *connect.Request[telhav1.HeartbeatRequest]) (*connect.Response[telhav1.HeartbeatResponse], error) {
	q, l, err := s.lease(ctx, "Heartbeat", req.Msg.GetLease())
	if err != nil {
		return nil, err
	}
	l, err = q.Heartbeat(l)
	if err != nil {
		return nil, classified(s.log, "Heartbeat", err)
	}
	return connect.NewResponse(&telhav1.HeartbeatResponse{Job: job(l.Job), Lease: l.Handle()}), nil
}

// Complete records a leased job as done.
func (s *Job) Complete(ctx context.Context, req *connect.Request[telhav1.CompleteRequest]) (*connect.Response[telhav1.CompleteResponse], error) {
	q, l, err := s.lease(ctx, "Complete", req.Msg.GetLease())
	if err != nil {
		return nil, err
	}
	if err := q.Complete(l); err != nil {
		return nil, classified(s.log, "Complete", err)
	}
	return connect.NewResponse(&telhav1.CompleteResponse{}), nil
}

// Fail records a failed attempt of a leased job.
func (s *Job) Fail(ctx context.Context, req *connect.Request[telhav1.FailRequest]) (*connect.Response[telhav1.FailResponse], error) {
	q, l, err := s.lease(ctx, "Fail", req.Msg.GetLease())
	if err != nil {
		return nil, err
	}
	var cause error
	if e := req.Msg.GetError(); e != "" {
		cause = errors.New(e)
	}
	j, err := q.Fail(l, cause)
	if err != nil {
		return nil, classified(s.log, "Fail", err)
	}
	return connect.NewResponse(&telhav1.FailResponse{Job: job(j)}), nil
}

// lease returns the caller's queue and the lease a handle names. The
// handle is checked against the job in that queue, so a handle of
// another tenant's job names nothing there.
func (s *Job) lease(ctx context.Context, call, handle string) (*jobs.Queue, jobs.Lease, error) {
	q, err := s.queue(ctx, call)
	if err != nil {
		return nil, jobs.Lease{}, err
	}
	l, err := jobs.ParseHandle(handle)
	if err != nil {
		return nil, jobs.Lease{}, invalid("lease: not a lease Claim returned")
	}
	return q, l, nil
}

// jobStates are the wire's job states.
var jobStates = map[jobs.State]telhav1.JobState{
	jobs.Queued:    telhav1.JobState_JOB_STATE_QUEUED,
	jobs.Leased:    telhav1.JobState_JOB_STATE_LEASED,
	jobs.Completed: telhav1.JobState_JOB_STATE_COMPLETED,
	jobs.Failed:    telhav1.JobState_JOB_STATE_FAILED,
	jobs.Dead:      telhav1.JobState_JOB_STATE_DEAD,
}

// job returns j on the wire.
func job(j jobs.Job) *telhav1.Job {
	return &telhav1.Job{
		Id: j.ID.String(), Priority: uint32(j.Priority), CreatedAt: timestamppb.New(j.Created), State: jobStates[j.State],
		Payload: j.Payload, Attempts: int32(j.Attempts), MaxAttempts: int32(j.MaxAttempts), NotBefore: optionalTime(j.NotBefore),
		Owner: j.Owner, LeaseExpiresAt: optionalTime(j.LeaseExpiry), LastError: j.LastError,
	}
}

// optionalTime returns t on the wire, or nil for the zero time.
func optionalTime(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}
