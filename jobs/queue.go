package jobs

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"math"
	"sync"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Queue is the jobs of one tenant, or the system jobs. It is safe for
// concurrent use. Its mutex serializes the reading and deciding of state
// changes, not their writing: a change marks the jobs it writes as moving,
// releases the mutex while the engine writes (and syncs) it, and takes the
// mutex again to unmark them. No operation reads or moves a moving job,
// so concurrent changes of one queue never act on the same job, and their
// durable writes share the engine's log syncs.
type Queue struct {
	store *Store
	space space

	mu sync.Mutex
	// moving holds the jobs whose state change is being written. While the
	// mutex is held, every job outside it has a state in storage that no
	// write in flight will change: marking and unmarking both take the
	// mutex. Claims step over moving jobs; an operation on one job waits
	// (landed) until it is not moving, then reads it.
	moving map[addr]struct{}
	landed *sync.Cond // broadcast, under mu, when moves land or fail
	// cursor is the queued address claimed last. Every queued row before it
	// has been claimed, so a claim scans from after it instead of over the
	// tombstones of all earlier claims; putting a row at or before it
	// resets it. Nil means scan from the start.
	cursor *addr
	// lastCreated is the creation time of the last enqueue, so that jobs
	// enqueued within one microsecond still get increasing times (FIFO).
	// It is taken before the write, so that concurrent enqueues never share
	// a time; a failed write leaves it taken.
	lastCreated storage.Timestamp
	// nextDue is the earliest backoff end among failed jobs, in Unix
	// microseconds: claims skip the failed scan until then. MinInt64 means
	// unknown (scan), MaxInt64 none.
	nextDue int64
	// rescanAt bounds what the cursor and nextDue, which follow this
	// process's writes only, may hide of other processes' writes to the
	// same store: from then on (Unix microseconds) a claim that finds
	// nothing after the cursor looks from the start, and a claim scans
	// the failed jobs whatever nextDue says; each look moves it on by
	// rescanEvery.
	rescanAt int64
}

// rescanEvery is how long a job that another process queued before this
// queue's cursor, or failed with an earlier backoff end than this queue
// knows of, may wait for this queue's claims.
const rescanEvery = time.Second

func newQueue(s *Store, sp space) *Queue {
	q := &Queue{store: s, space: sp, nextDue: math.MinInt64, moving: make(map[addr]struct{})}
	q.landed = sync.NewCond(&q.mu)
	return q
}

// String names the queue.
func (q *Queue) String() string { return q.space.String() }

// Enqueue adds a queued job and returns it.
func (q *Queue) Enqueue(payload []byte, o EnqueueOptions) (Job, error) {
	if o.MaxAttempts < 0 {
		return Job{}, fmt.Errorf("enqueue in %s: negative max attempts %d", q, o.MaxAttempts)
	}
	id := o.ID
	if id == uuid.Nil {
		var err error
		if id, err = uuid.NewV7(); err != nil {
			return Job{}, fmt.Errorf("enqueue in %s: new job id: %w", q, err)
		}
	}
	maxAttempts := q.store.opts.MaxAttempts
	if o.MaxAttempts > 0 {
		maxAttempts = o.MaxAttempts
	}
	rec := record{maxAttempts: uint32(min(uint64(maxAttempts), math.MaxUint32)), payload: bytes.Clone(payload)}

	q.mu.Lock()
	defer q.mu.Unlock()
	now, err := q.store.now()
	if err != nil {
		return Job{}, fmt.Errorf("enqueue in %s: %w", q, err)
	}
	created := storage.TimestampOf(now)
	if created <= q.lastCreated {
		if q.lastCreated == storage.MaxTimestamp {
			return Job{}, fmt.Errorf("enqueue in %s: no creation time after %s: %w", q, q.lastCreated, ErrBadClock)
		}
		created = q.lastCreated + 1
	}
	a := addr{Priority: o.Priority.keyByte(), Created: created, ID: id}
	q.lastCreated = created
	if err := q.commitLocked(move{JobAddr: a, To: Queued, Value: rec.encode(nil)}); err != nil {
		return Job{}, fmt.Errorf("enqueue %s in %s: %w", id, q, err)
	}
	q.queuedLocked(a)
	return jobOf(a, Queued, rec), nil
}

// Claim leases the next job to owner: the highest priority first, the
// oldest first within a priority. It returns ErrNoJob when none is ready.
func (q *Queue) Claim(owner string) (Lease, error) {
	if owner == "" || len(owner) > MaxOwnerLen {
		return Lease{}, fmt.Errorf("claim in %s: %w: %q", q, ErrBadOwner, owner)
	}
	token, err := uuid.NewRandom()
	if err != nil {
		return Lease{}, fmt.Errorf("claim in %s: new lease token: %w", q, err)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	now, err := q.store.now()
	if err != nil {
		return Lease{}, fmt.Errorf("claim in %s: %w", q, err)
	}
	if err := q.promoteLocked(now); err != nil {
		return Lease{}, fmt.Errorf("claim in %s: %w", q, err)
	}
	for range maxClaimAttempts {
		l, err := q.claimLocked(owner, token, now)
		if !errors.Is(err, storage.ErrConflict) {
			return l, err
		}
		// Another process moved the job first: claim the next one.
	}
	return Lease{}, fmt.Errorf("claim in %s: every job claimed by others first, %d times: %w", q, maxClaimAttempts, storage.ErrConflict)
}

// maxClaimAttempts bounds the claims of one Claim that other processes
// take the job of first.
const maxClaimAttempts = 100

// claimLocked leases the first queued job that is not moving to owner. A
// job another process moved first is storage.ErrConflict.
func (q *Queue) claimLocked(owner string, token uuid.UUID, now time.Time) (Lease, error) {
	// The first queued job that is not moving is claimed; malformed rows
	// before it are buried in the same batch.
	var moves []move
	var claimed *record
	for r, err := range q.rows(Queued, q.cursor) {
		if err != nil {
			return Lease{}, fmt.Errorf("claim in %s: %w", q, err)
		}
		if q.isMoving(r.JobAddr) {
			continue
		}
		rec, err := decodeRecord(r.Value)
		if err == nil && rec.attempts >= rec.maxAttempts {
			// Written by another program: claiming it would wrap the
			// attempt counter or exceed the limit.
			err = fmt.Errorf("queued with %d of %d attempts spent", rec.attempts, rec.maxAttempts)
		}
		if err != nil {
			moves = append(moves, buryMove(r, err))
			continue
		}
		rec.attempts++
		rec.owner, rec.token = owner, token
		rec.leaseExpiry = micros(now.Add(q.store.opts.LeaseDuration))
		moves = append(moves, move{JobAddr: r.JobAddr, From: Queued, To: Leased, Value: rec.encode(nil), Was: r.Value})
		claimed = &rec
		break
	}
	if len(moves) == 0 && q.cursor != nil && micros(now) >= q.rescanAt {
		// Nothing after the cursor: another process may have queued a job
		// before it (its clock behind ours). Look from the start, at most
		// once per rescanEvery.
		q.cursor, q.rescanAt = nil, micros(now.Add(rescanEvery))
		return q.claimLocked(owner, token, now)
	}
	if len(moves) == 0 {
		return Lease{}, fmt.Errorf("claim in %s: %w", q, ErrNoJob)
	}
	a := moves[len(moves)-1].JobAddr
	if claimed != nil {
		// The next claim starts after this job, which is moving.
		q.cursor = &a
	}
	if err := q.commitLocked(moves...); err != nil {
		// The job is queued still, or another process moved it first:
		// claims must look again.
		q.cursor = nil
		if claimed == nil {
			return Lease{}, fmt.Errorf("claim in %s: %w", q, err)
		}
		return Lease{}, fmt.Errorf("claim %s in %s: %w", a.ID, q, err)
	}
	if claimed == nil {
		return Lease{}, fmt.Errorf("claim in %s: %w", q, ErrNoJob)
	}
	return Lease{Job: jobOf(a, Leased, *claimed), token: token}, nil
}

// Heartbeat extends a lease by Options.LeaseDuration from now.
func (q *Queue) Heartbeat(l Lease) (Lease, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now, err := q.store.now()
	if err != nil {
		return Lease{}, fmt.Errorf("heartbeat %s in %s: %w", l.ID, q, err)
	}
	a, rec, was, err := q.holdLocked(l, now)
	if err != nil {
		return Lease{}, fmt.Errorf("heartbeat %s in %s: %w", l.ID, q, err)
	}
	rec.leaseExpiry = micros(now.Add(q.store.opts.LeaseDuration))
	if err := q.commitLocked(move{JobAddr: a, From: Leased, To: Leased, Value: rec.encode(nil), Was: was}); err != nil {
		return Lease{}, fmt.Errorf("heartbeat %s in %s: %w", l.ID, q, lost(err))
	}
	return Lease{Job: jobOf(a, Leased, rec), token: l.token}, nil
}

// Complete records the leased job as done.
func (q *Queue) Complete(l Lease) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	now, err := q.store.now()
	if err != nil {
		return fmt.Errorf("complete %s in %s: %w", l.ID, q, err)
	}
	a, rec, was, err := q.holdLocked(l, now)
	if err != nil {
		return fmt.Errorf("complete %s in %s: %w", l.ID, q, err)
	}
	rec.leaseExpiry, rec.token = 0, uuid.Nil
	if err := q.commitLocked(move{JobAddr: a, From: Leased, To: Completed, Value: rec.encode(nil), Was: was}); err != nil {
		return fmt.Errorf("complete %s in %s: %w", l.ID, q, lost(err))
	}
	return nil
}

// Fail records a failed attempt of the leased job. The job waits out its
// backoff in state failed and is then claimed again, or goes to dead when
// its attempts are spent. Fail returns the job in its new state.
func (q *Queue) Fail(l Lease, cause error) (Job, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	now, err := q.store.now()
	if err != nil {
		return Job{}, fmt.Errorf("fail %s in %s: %w", l.ID, q, err)
	}
	a, rec, was, err := q.holdLocked(l, now)
	if err != nil {
		return Job{}, fmt.Errorf("fail %s in %s: %w", l.ID, q, err)
	}
	rec.leaseExpiry, rec.token = 0, uuid.Nil
	rec.lastError = "failed"
	if cause != nil {
		rec.lastError = truncate(cause.Error(), MaxErrorLen)
	}
	to := Dead
	if rec.attempts < rec.maxAttempts {
		to = Failed
		rec.notBefore = micros(now.Add(q.store.opts.backoff(rec.attempts)))
	}
	if err := q.commitLocked(move{JobAddr: a, From: Leased, To: to, Value: rec.encode(nil), Was: was}); err != nil {
		return Job{}, fmt.Errorf("fail %s in %s: %w", l.ID, q, lost(err))
	}
	if to == Failed {
		q.nextDue = min(q.nextDue, rec.notBefore)
	}
	return jobOf(a, to, rec), nil
}

// Get returns the job ref in whatever state it is, or ErrUnknownJob.
func (q *Queue) Get(ref Ref) (Job, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := addrOf(ref)
	q.settleLocked(a)
	state, v, err := q.findLocked(a)
	if err != nil {
		return Job{}, fmt.Errorf("get %s in %s: %w", ref.ID, q, err)
	}
	rec, err := decodeRecord(v)
	if err != nil {
		return Job{}, fmt.Errorf("get %s in %s: %w", ref.ID, q, err)
	}
	return jobOf(a, state, rec), nil
}

// List returns the jobs in state in claim order. It reads the whole state,
// so use it for inspection, not on a hot path.
func (q *Queue) List(state State) ([]Job, error) {
	if !state.Valid() {
		return nil, fmt.Errorf("list %s: %w: 0x%02x", q, ErrBadState, uint8(state))
	}
	var out []Job
	for r, err := range q.rows(state, nil) {
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", q, err)
		}
		rec, err := decodeRecord(r.Value)
		if err != nil {
			return nil, fmt.Errorf("list %s: job %s: %w", q, r.ID, err)
		}
		out = append(out, jobOf(r.JobAddr, state, rec))
	}
	return out, nil
}

// holdLocked waits until l's job is not moving, checks that l still holds
// it, and returns the job's address, its record and the value it was
// decoded from (the value a move of it is decided on). The checks run in
// this order: the job must exist (ErrUnknownJob) and be leased
// (ErrLeaseLost), to l's owner (ErrWrongOwner), under l's claim
// (ErrLeaseLost), and not expired (ErrLeaseLost: the reaper may hand it
// out at any moment).
func (q *Queue) holdLocked(l Lease, now time.Time) (addr, record, []byte, error) {
	a := addrOf(l.Ref)
	q.settleLocked(a)
	state, v, err := q.findLocked(a)
	if err != nil {
		return a, record{}, nil, err
	}
	if state != Leased {
		return a, record{}, nil, fmt.Errorf("%w: job is %s", ErrLeaseLost, state)
	}
	rec, err := decodeRecord(v)
	if err != nil {
		return a, record{}, nil, err
	}
	switch {
	case rec.owner != l.Owner:
		return a, record{}, nil, fmt.Errorf("%w: held by %q, not %q", ErrWrongOwner, rec.owner, l.Owner)
	case rec.token != l.token:
		return a, record{}, nil, fmt.Errorf("%w: job was claimed again", ErrLeaseLost)
	case micros(now) >= rec.leaseExpiry:
		return a, record{}, nil, fmt.Errorf("%w: expired at %s", ErrLeaseLost, timeOf(rec.leaseExpiry))
	}
	return a, rec, v, nil
}

// lost reports a move of a leased job that another process moved first (a
// reaper that took the expired lease back, say) as ErrLeaseLost.
func lost(err error) error {
	if errors.Is(err, storage.ErrConflict) {
		return fmt.Errorf("%w: another process moved the job first: %w", ErrLeaseLost, err)
	}
	return err
}

// states is every job state, in the order findLocked tries them.
var states = [...]State{Leased, Queued, Failed, Completed, Dead}

// findLocked returns the state and value of the job at a, which must not be
// moving: it reads the states one by one, and a write landing between two
// reads could hide the job from both.
func (q *Queue) findLocked(a addr) (State, []byte, error) {
	for _, s := range states {
		v, err := q.space.get(q.store.engine, s, a)
		switch {
		case err == nil:
			return s, v, nil
		case !errors.Is(err, storage.ErrNotFound):
			return 0, nil, err
		}
	}
	return 0, nil, fmt.Errorf("%w: %s", ErrUnknownJob, a.ID)
}

// promoteLocked returns the failed jobs whose backoff has ended to the
// queue, in one batch, which also buries the failed rows that do not
// decode.
func (q *Queue) promoteLocked(now time.Time) error {
	t := micros(now)
	if t < q.nextDue && t < q.rescanAt {
		return nil
	}
	var moves []move
	next := int64(math.MaxInt64)
	for r, err := range q.rows(Failed, nil) {
		if err != nil {
			return fmt.Errorf("promote failed jobs: %w", err)
		}
		if q.isMoving(r.JobAddr) {
			continue
		}
		rec, err := decodeRecord(r.Value)
		switch {
		case err != nil:
			moves = append(moves, buryMove(r, err))
		case rec.notBefore > t:
			next = min(next, rec.notBefore)
		default:
			moves = append(moves, move{JobAddr: r.JobAddr, From: Failed, To: Queued, Value: r.Value, Was: r.Value})
		}
	}
	// Set before the write: a Fail that lands meanwhile lowers it. Another
	// process's Fail does not: the failed jobs are looked at again within
	// rescanEvery whatever nextDue says.
	q.nextDue = next
	q.rescanAt = t + rescanEvery.Microseconds()
	if len(moves) == 0 {
		return nil
	}
	if err := q.commitLocked(moves...); err != nil {
		q.nextDue = math.MinInt64 // the due jobs are failed still
		if errors.Is(err, storage.ErrConflict) {
			return nil // another process moved one first: promote again next claim
		}
		return fmt.Errorf("promote failed jobs: %w", err)
	}
	for _, m := range moves {
		if m.To == Queued {
			q.queuedLocked(m.JobAddr)
		}
	}
	return nil
}

// buryMove moves a row whose value does not decode to dead, keeping the
// bytes as its payload, so that one corrupt row cannot block a queue.
func buryMove(r row, cause error) move {
	rec := record{maxAttempts: 1, lastError: cause.Error(), payload: r.Value}
	return move{JobAddr: r.JobAddr, From: r.State, To: Dead, Value: rec.encode(nil), Was: r.Value}
}

// queuedLocked notes that a was put in state queued: a claim must see it
// even if it sorts at or before the cursor.
func (q *Queue) queuedLocked(a addr) {
	if q.cursor != nil && !less(*q.cursor, a) {
		q.cursor = nil
	}
}

// rows yields the rows of state in key order, strictly after *after when
// after is not nil. It quarantines the rows whose keys do not decode and
// goes on; any other error ends it.
func (q *Queue) rows(state State, after *addr) iter.Seq2[row, error] {
	return func(yield func(row, error) bool) {
		for r, err := range q.space.poll(q.store.engine, state, after) {
			if bad := (*BadRow)(nil); errors.As(err, &bad) {
				q.store.quarantine(bad)
				continue
			}
			if !yield(r, err) || err != nil {
				return
			}
		}
	}
}

// write applies moves as one atomic batch, durably if the store says so.
func (q *Queue) write(moves ...move) error {
	return q.space.write(q.store.engine, q.store.opts.Durable, moves...)
}

// commitLocked writes moves as one atomic batch with the mutex released, so
// that the writes (and log syncs) of concurrent changes overlap, and
// returns with it held again. The jobs it moves are marked moving until
// the write has landed or failed. The caller holds q.mu, and must read
// again whatever it needs after the call: other changes ran meanwhile.
func (q *Queue) commitLocked(moves ...move) error {
	for _, m := range moves {
		q.moving[m.JobAddr] = struct{}{}
	}
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		for _, m := range moves {
			delete(q.moving, m.JobAddr)
		}
		q.landed.Broadcast()
	}()
	return q.write(moves...)
}

// isMoving reports whether a state change of the job at a is being
// written; the caller holds q.mu.
func (q *Queue) isMoving(a addr) bool {
	_, ok := q.moving[a]
	return ok
}

// settleLocked waits until the job at a is not moving; the caller holds
// q.mu, which the wait releases meanwhile.
func (q *Queue) settleLocked(a addr) {
	for q.isMoving(a) {
		q.landed.Wait()
	}
}
