package jobs

import "errors"

// Sentinel errors. Operations wrap them with the queue and job they concern;
// test with errors.Is.
var (
	// ErrNoJob is returned by Claim when no job is ready.
	ErrNoJob = errors.New("no job ready")

	// ErrUnknownJob reports a job that is in no state of this queue.
	ErrUnknownJob = errors.New("unknown job")

	// ErrLeaseLost reports a lease that no longer holds: it expired, or the
	// reaper returned the job to the queue, or the job was claimed again.
	// The worker must stop; its result was not recorded.
	ErrLeaseLost = errors.New("lease lost")

	// ErrWrongOwner reports a lease presented by an owner other than the
	// one holding the job.
	ErrWrongOwner = errors.New("job leased by another owner")

	// ErrBadValue reports job value bytes that do not decode.
	ErrBadValue = errors.New("malformed job value")

	// ErrBadOwner reports an empty owner name or one longer than MaxOwnerLen.
	ErrBadOwner = errors.New("bad lease owner")

	// ErrBadLease reports a lease handle that is not one (ParseHandle).
	ErrBadLease = errors.New("malformed lease handle")

	// ErrBadState reports a State outside the five job states.
	ErrBadState = errors.New("unknown job state")

	// ErrBadClock reports a clock reading that job times cannot hold: job
	// times are Unix microseconds, so a reading outside about 292,000 years
	// either side of 1970 (less the lease and backoff it is extended by),
	// or a run of enqueues that leaves no later creation time, is refused
	// rather than wrapped around.
	ErrBadClock = errors.New("clock reading outside the range of job times")
)
