package jobqueue

import (
	"errors"
	"fmt"
	"iter"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/tenants"
)

// System jobs are rows of the jobs family under the reserved all-zero
// scope. Its callers (telha.dev/jobs) address a system job
// by the typed components that follow the scope in the key, never by a key,
// so the system prefix never leaves this package. The value bytes are opaque
// here: the job queue owns their format.

// JobAddr locates one job within a state: the key components after the
// scope and state byte. Rows of one state sort by Priority (the raw key
// byte, ascending), then Created (ascending, FIFO), then ID.
type JobAddr struct {
	Priority uint8
	Created  storage.Timestamp
	ID       uuid.UUID
}

// JobRow is one system job row read by a poll.
type JobRow struct {
	State storage.JobState
	JobAddr
	Value []byte
}

// JobMove is one state change of a system job. From zero means the job is
// new (nothing to delete); To zero means the job is removed. A move with
// From == To rewrites the value in place (a lease heartbeat).
//
// Was is the value the job held in its From state when the move was
// decided, and the move applies only if the job still holds it there: the
// batch that writes it is conditional (storage.Batch.RequireValue), so that
// of two processes that decide moves of one job at once (two claims, a
// completion and a reap) one lands and the other is storage.ErrConflict. A
// new job (From zero) must be absent from its To state.
type JobMove struct {
	JobAddr
	From  storage.JobState
	To    storage.JobState
	Value []byte
	Was   []byte
}

// ErrBadMove reports a JobMove with an unknown state, or with neither a From
// nor a To state. Reads of an unknown state fail with storage.ErrUnknownKind.
var ErrBadMove = errors.New("bad job move")

// BadRow is a row of the jobs family whose key does not decode (a wrong
// length, an unknown state byte, a half-nil scope): no constructor of the
// key authority writes one, so it comes from damage or from another
// program. Polls and sweeps yield it as an error and go on, so that one bad
// row never blocks a queue or the reaper; the caller quarantines it (skips
// and reports it). Its key cannot address it again, so nothing moves it:
// an operator inspects it (telha debug decode-key jobs <hex>) and removes
// it.
type BadRow struct {
	Key   []byte // the row's key bytes
	Cause error  // why the key does not decode
}

func (b *BadRow) Error() string { return fmt.Sprintf("undecodable jobs row %x: %v", b.Key, b.Cause) }

// Unwrap returns the decoding error.
func (b *BadRow) Unwrap() error { return b.Cause }

// GetJob returns the value of the system job at addr in state, or an error
// wrapping storage.ErrNotFound.
func GetJob(r storage.Reader, state storage.JobState, addr JobAddr) ([]byte, error) {
	if !state.Valid() {
		return nil, fmt.Errorf("get system job %s: %w: job state 0x%02x", addr.ID, storage.ErrUnknownKind, uint8(state))
	}
	v, err := r.Get(storage.SystemScope{}.JobKey(state, addr.Priority, addr.Created, addr.ID))
	if err != nil {
		return nil, fmt.Errorf("get system job %s in state %s: %w", addr.ID, state, err)
	}
	return v, nil
}

// PollJobs yields the system jobs in state in key order (priority byte, then
// FIFO). With after set, it starts strictly after that address: the cursor
// of a queue that remembers where its last claim was, so that a claim does
// not walk over the tombstones of every job claimed before it. A row whose
// key does not decode is yielded as a *BadRow error and the poll goes on;
// any other error ends it.
func PollJobs(r storage.Reader, state storage.JobState, after *JobAddr) iter.Seq2[JobRow, error] {
	return func(yield func(JobRow, error) bool) {
		if !state.Valid() {
			yield(JobRow{}, fmt.Errorf("poll system jobs: %w: job state 0x%02x", storage.ErrUnknownKind, uint8(state)))
			return
		}
		sys := storage.SystemScope{}
		var from *storage.Key
		if after != nil {
			k := sys.JobKey(state, after.Priority, after.Created, after.ID)
			from = &k
		}
		for row, err := range Poll(r, sys.JobsInState(state), from, fmt.Sprintf("system jobs in state %s", state)) {
			if !yield(row, err) {
				return
			}
		}
	}
}

// Poll yields the job rows of rng, one state's jobs of one queue, in key
// order, strictly after the key *after when after is not nil. A row whose
// key does not decode is yielded as a *BadRow error and the poll goes on;
// any other error ends it; what names the rows in errors ("system jobs in
// state queued"). It is the one poll loop of every job queue: the system
// queue's here and the tenant queues' of telha.dev/jobs.
func Poll(r storage.Reader, rng storage.ScanRange, after *storage.Key, what string) iter.Seq2[JobRow, error] {
	return func(yield func(JobRow, error) bool) {
		if after != nil {
			var err error
			if rng, err = rng.After(*after); err != nil {
				yield(JobRow{}, fmt.Errorf("poll %s after %s: %w", what, *after, err))
				return
			}
		}
		for kv, err := range r.Scan(rng) {
			if err != nil {
				yield(JobRow{}, fmt.Errorf("poll %s: %w", what, err))
				return
			}
			p, err := storage.DecodeJob(kv.Key)
			if err != nil {
				if !yield(JobRow{}, &BadRow{Key: kv.Key, Cause: err}) {
					return
				}
				continue
			}
			row := JobRow{State: p.State, JobAddr: JobAddr{Priority: p.Priority, Created: p.Created, ID: p.ID}, Value: kv.Value}
			if !yield(row, nil) {
				return
			}
		}
	}
}

// WriteJobs applies moves to system jobs as one atomic batch: each move
// deletes the job's key in its From state and puts its value in its To
// state. With durable set the batch is on stable storage when WriteJobs
// returns.
func WriteJobs(e storage.Engine, durable bool, moves ...JobMove) error {
	sys := storage.SystemScope{}
	key := func(a JobAddr, s storage.JobState) storage.Key { return sys.JobKey(s, a.Priority, a.Created, a.ID) }
	return applyMoves(e, durable, "system", key, nil, moves...)
}

// ApplyTenantMoves applies moves to a tenant's queue as one atomic batch,
// each recorded by AddJobMove with key(addr, state) the job's key in a
// state, and fenced on the tenant's registry row (tenants.WriteFenced): no
// job is added to or moved in a tenant being imported or erased, whatever
// process checked it before. With durable set the batch is on stable
// storage when ApplyTenantMoves returns. queue names the queue in errors.
// It is the one write path of the tenant queues.
func ApplyTenantMoves(e storage.Engine, durable bool, queue string, key func(JobAddr, storage.JobState) storage.Key, moves ...JobMove) error {
	return applyMoves(e, durable, queue, key, func(b *storage.Batch) error { return tenants.WriteFenced(e, durable, b) }, moves...)
}

// applyMoves applies moves as one atomic batch, with write, if set, or
// else the engine's Write or WriteDurable.
func applyMoves(e storage.Engine, durable bool, queue string, key func(JobAddr, storage.JobState) storage.Key, write func(*storage.Batch) error, moves ...JobMove) error {
	var b storage.Batch
	for i, m := range moves {
		if err := AddJobMove(&b, m, func(s storage.JobState) storage.Key { return key(m.JobAddr, s) }); err != nil {
			return fmt.Errorf("write %s jobs: move %d: %w", queue, i, err)
		}
	}
	if err := b.Err(); err != nil {
		return fmt.Errorf("write %s jobs: %w", queue, err)
	}
	if write == nil {
		write = e.Write
		if durable {
			write = e.WriteDurable
		}
	}
	if err := write(&b); err != nil {
		return fmt.Errorf("write %s jobs: %w", queue, err)
	}
	return nil
}

// AddJobMove records move m in b, where key(s) is the job's key in state s:
// it requires the key of the From state to hold m.Was (or, for a new job,
// the key of the To state to be absent), deletes the key of the From state
// (unless the move rewrites the value in place) and puts the value at the
// key of the To state. It is the one validated path of a job's state
// change, for the system queue here and for the tenant queues of
// telha.dev/jobs, so that both refuse the same moves: an unknown state,
// neither a From nor a To, or a move from a state without the value it
// was decided on, with ErrBadMove.
func AddJobMove(b *storage.Batch, m JobMove, key func(storage.JobState) storage.Key) error {
	validOrZero := func(s storage.JobState) bool { return s == 0 || s.Valid() }
	if !validOrZero(m.From) || !validOrZero(m.To) || (m.From == 0 && m.To == 0) || (m.From != 0 && m.Was == nil) {
		return fmt.Errorf("job %s from 0x%02x to 0x%02x (value decided on: %t): %w", m.ID, uint8(m.From), uint8(m.To), m.Was != nil, ErrBadMove)
	}
	if m.From == 0 {
		b.RequireAbsent(key(m.To))
	} else {
		b.RequireValue(key(m.From), m.Was)
	}
	if m.From != 0 && m.From != m.To {
		b.Delete(key(m.From))
	}
	if m.To != 0 {
		b.Put(key(m.To), m.Value)
	}
	return nil
}
