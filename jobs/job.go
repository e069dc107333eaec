package jobs

import (
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Priority orders claims: a higher Priority is claimed first. The zero value
// is the lowest priority. The key stores the byte 255-p because the key
// layout sorts its priority byte ascending.
type Priority uint8

// Common priorities.
const (
	PriorityLow    Priority = 64
	PriorityNormal Priority = 128
	PriorityHigh   Priority = 192
)

// keyByte is the priority byte of the key layout.
func (p Priority) keyByte() uint8 { return 255 - uint8(p) }

// priorityOf inverts keyByte.
func priorityOf(b uint8) Priority { return Priority(255 - b) }

// State is the state of a job, the state byte of its key.
type State = storage.JobState

// The job states.
const (
	Queued    = storage.JobQueued
	Leased    = storage.JobLeased
	Completed = storage.JobCompleted
	Failed    = storage.JobFailed // waiting out its backoff
	Dead      = storage.JobDead   // attempts spent
)

// Ref identifies one job of a queue. Its fields are fixed at enqueue and
// together address the job's key in every state, so no id index is needed.
type Ref struct {
	ID       uuid.UUID
	Priority Priority
	Created  time.Time // microsecond precision, UTC
}

// Job is a snapshot of one job.
type Job struct {
	Ref
	State       State
	Payload     []byte
	Attempts    int       // claims so far, including the current one
	MaxAttempts int       // claims allowed before the job is dead
	NotBefore   time.Time // end of the retry backoff; zero if none
	Owner       string    // the worker holding or last holding the lease
	LeaseExpiry time.Time // zero unless leased
	LastError   string    // the cause of the last failure or lease expiry
}

// Lease is a claimed job. Present it to Heartbeat, Complete or Fail; it
// carries a token unique to this claim, so a stale lease of the same owner
// is told apart from the current one.
type Lease struct {
	Job
	token uuid.UUID
}

// EnqueueOptions are the optional parameters of Enqueue.
type EnqueueOptions struct {
	// ID names the job; the nil UUID means a new UUIDv7. Ids must be unique
	// within a queue; the queue does not look for duplicates.
	ID uuid.UUID

	// Priority orders claims, higher first; the zero value is the lowest.
	Priority Priority

	// MaxAttempts overrides Options.MaxAttempts for this job when positive.
	MaxAttempts int
}

// addrOf returns the key components of ref after the scope and state.
func addrOf(ref Ref) addr {
	return addr{Priority: ref.Priority.keyByte(), Created: storage.TimestampOf(ref.Created), ID: ref.ID}
}

// jobOf assembles the Job at a in state from its decoded value.
func jobOf(a addr, state State, r record) Job {
	return Job{
		Ref:         Ref{ID: a.ID, Priority: priorityOf(a.Priority), Created: a.Created.Time()},
		State:       state,
		Payload:     r.payload,
		Attempts:    int(r.attempts),
		MaxAttempts: int(r.maxAttempts),
		NotBefore:   timeOf(r.notBefore),
		Owner:       r.owner,
		LeaseExpiry: timeOf(r.leaseExpiry),
		LastError:   r.lastError,
	}
}

// timeOf converts Unix microseconds to a UTC time, 0 to the zero time.
func timeOf(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return storage.Timestamp(us).Time()
}

// micros converts t to Unix microseconds.
func micros(t time.Time) int64 { return int64(storage.TimestampOf(t)) }
