package jobs

import (
	"fmt"
	"time"

	"telha.dev/core/storage"
)

// purgeBatch is how many rows one purge batch deletes.
const purgeBatch = 1024

// Purge deletes the jobs in state completed or dead that were enqueued
// before cutoff, and returns how many it deleted. Finished jobs otherwise
// stay forever, and the reaper's sweep reads every row of the jobs family,
// so a deployment purges on a schedule. Each batch of deletes is atomic;
// the purge as a whole is not.
func (q *Queue) Purge(state State, cutoff time.Time) (int, error) {
	if state != Completed && state != Dead {
		return 0, fmt.Errorf("purge %s: %w: only completed and dead jobs are purged, not %s", q, ErrBadState, state)
	}
	limit := storage.MaxTimestamp
	if !cutoff.After(maxJobTime) {
		limit = storage.TimestampOf(cutoff)
	}
	if cutoff.Before(minJobTime) {
		limit = storage.MinTimestamp
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	var moves []move
	n := 0
	flush := func() error {
		if len(moves) == 0 {
			return nil
		}
		if err := q.write(moves...); err != nil {
			return fmt.Errorf("purge %s jobs of %s: %w", state, q, err)
		}
		n += len(moves)
		moves = moves[:0]
		return nil
	}
	for r, err := range q.rows(state, nil) {
		if err != nil {
			return n, fmt.Errorf("purge %s jobs of %s: %w", state, q, err)
		}
		if r.Created >= limit {
			continue // rows sort by priority first, so a later row may still be old
		}
		moves = append(moves, move{JobAddr: r.JobAddr, From: state, Was: r.Value})
		if len(moves) == purgeBatch {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}
