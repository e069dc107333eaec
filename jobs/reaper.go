package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/jobqueue"
)

// Reaped counts what one reaper pass did.
type Reaped struct {
	Requeued    int // expired leases returned to the queue
	Dead        int // expired leases whose attempts were spent
	Quarantined int // rows whose keys do not decode, stepped over (Store.Quarantined lists them)
	Fenced      int // expired leases of tenants being imported or erased, left for the import or the erasure
}

// Reap returns every expired lease, of every tenant and of the system
// queue, to its queue, or to dead when the job has no attempts left. It
// sweeps the whole jobs family (one pass), then re-reads each expired job
// under its queue's mutex before moving it, because a worker may have
// renewed or finished it since the sweep.
//
// The sweep crosses every tenant's rows: a row whose value does not decode
// is moved to dead (buried), and a row whose key does not decode is
// stepped over and quarantined (Store.Quarantined), so that one damaged
// row never stops the reaping of every other tenant. So does a tenant
// being imported or erased, whose leases stay as they are (Fenced): its
// jobs are the import's or the erasure's to settle.
func (s *Store) Reap() (Reaped, error) {
	t, err := s.now()
	if err != nil {
		return Reaped{}, fmt.Errorf("reap: %w", err)
	}
	now := micros(t)
	expired, bad, err := jobqueue.SweepLeases(s.engine, func(v []byte) bool {
		rec, err := decodeRecord(v)
		// A malformed lease can never be renewed: reclaim it so it is buried.
		return err != nil || now >= rec.leaseExpiry
	})
	if err != nil {
		return Reaped{}, fmt.Errorf("reap: %w", err)
	}
	done := Reaped{Quarantined: len(bad)}
	for i := range bad {
		s.quarantine(&bad[i])
	}
	for _, j := range expired {
		q := s.system
		if !j.Scope.IsSystem() {
			scope, err := storage.NewTenantScope(j.Scope.Tenant, j.Scope.Organization)
			if err != nil {
				return done, fmt.Errorf("reap job %s: %w", j.ID, err)
			}
			if q, err = s.Tenant(scope); err != nil {
				return done, fmt.Errorf("reap job %s: %w", j.ID, err)
			}
		}
		to, err := q.reclaim(j.JobAddr, now)
		if errors.Is(err, storage.ErrTenantNotWritable) {
			done.Fenced++
			continue
		}
		if err != nil {
			return done, fmt.Errorf("reap: %w", err)
		}
		switch to {
		case Queued:
			done.Requeued++
		case Dead:
			done.Dead++
		}
	}
	return done, nil
}

// RunReaper calls Reap every interval until ctx is done, and returns the
// first error of a pass, or nil when ctx ends. every must be positive.
func (s *Store) RunReaper(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		return fmt.Errorf("run reaper every %s: interval must be positive", every)
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if _, err := s.Reap(); err != nil {
				return err
			}
		}
	}
}

// reclaim moves the job at a from leased back to queued, or to dead, if its
// lease is still expired at now, and returns the state it moved to (zero if
// it did not move).
func (q *Queue) reclaim(a addr, now int64) (State, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.settleLocked(a)
	v, err := q.space.get(q.store.engine, Leased, a)
	if errors.Is(err, storage.ErrNotFound) {
		return 0, nil // completed, failed or reclaimed since the sweep
	}
	if err != nil {
		return 0, fmt.Errorf("reclaim %s in %s: %w", a.ID, q, err)
	}
	rec, err := decodeRecord(v)
	if err != nil {
		if err := q.commitLocked(buryMove(row{State: Leased, JobAddr: a, Value: v}, err)); err != nil {
			return 0, fmt.Errorf("reclaim in %s: bury malformed job %s: %w", q, a.ID, err)
		}
		return Dead, nil
	}
	if now < rec.leaseExpiry {
		return 0, nil // renewed since the sweep
	}
	rec.lastError = fmt.Sprintf("lease of %q expired at %s", rec.owner, timeOf(rec.leaseExpiry).Format(time.RFC3339Nano))
	rec.leaseExpiry, rec.token = 0, uuid.Nil
	to := Queued
	if rec.attempts >= rec.maxAttempts {
		to = Dead
	}
	if err := q.commitLocked(move{JobAddr: a, From: Leased, To: to, Value: rec.encode(nil), Was: v}); errors.Is(err, storage.ErrConflict) {
		return 0, nil // renewed, completed or reclaimed by another process since the read
	} else if err != nil {
		return 0, fmt.Errorf("reclaim %s in %s: %w", a.ID, q, err)
	}
	if to == Queued {
		q.queuedLocked(a)
	}
	return to, nil
}
