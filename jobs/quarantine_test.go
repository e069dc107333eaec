package jobs_test

import (
	"errors"
	"iter"
	"testing"
	"time"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/jobs"
)

// badRowEngine is an engine whose jobs family also holds one row that no
// key constructor writes (a key of the wrong length): every scan of the
// family meets it first, the reaper's sweep and every queue's polls.
type badRowEngine struct{ storage.Engine }

// badKey is the bad row's key.
var badKey = make([]byte, 40)

func (b badRowEngine) Scan(r storage.ScanRange) iter.Seq2[storage.KV, error] {
	return func(yield func(storage.KV, error) bool) {
		if r.Family() == storage.Jobs && r.Valid() {
			if !yield(storage.KV{Key: badKey, Value: []byte("bad")}, nil) {
				return
			}
		}
		for kv, err := range b.Engine.Scan(r) {
			if !yield(kv, err) || err != nil {
				return
			}
		}
	}
}

// TestBadRowDoesNotBlockTenants: one undecodable jobs row used to make
// Reap fail for every tenant. Now every operation steps over it,
// quarantines it once, and serves every queue.
func TestBadRowDoesNotBlockTenants(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		c := newClock()
		s := newStore(t, badRowEngine{e}, c)
		queues := []*jobs.Queue{tenantQueue(t, s, 1), tenantQueue(t, s, 2), s.System()}
		for _, q := range queues {
			mustEnqueue(t, q, "first", jobs.EnqueueOptions{})
			mustClaim(t, q, "gone") // a worker that dies
			mustEnqueue(t, q, "second", jobs.EnqueueOptions{})
		}
		c.Advance(time.Hour)
		r, err := s.Reap()
		if err != nil || r != (jobs.Reaped{Requeued: 3, Quarantined: 1}) {
			t.Fatalf("reap past a bad row: %+v, %v; want 3 requeued, 1 quarantined", r, err)
		}
		for _, q := range queues {
			for range 2 {
				if err := q.Complete(mustClaim(t, q, "w")); err != nil {
					t.Fatal(err)
				}
			}
			if done, err := q.List(jobs.Completed); err != nil || len(done) != 2 {
				t.Fatalf("%s: %d completed, %v", q, len(done), err)
			}
			if _, err := q.Purge(jobs.Completed, c.Now().Add(time.Hour)); err != nil {
				t.Fatalf("%s: purge: %v", q, err)
			}
		}
		rows, unlisted := s.Quarantined()
		if len(rows) != 1 || unlisted != 0 || string(rows[0].Key) != string(badKey) || !errors.Is(rows[0].Cause, storage.ErrWrongLength) {
			t.Fatalf("quarantined %v (+%d), want the bad row once", rows, unlisted)
		}
	})
}
