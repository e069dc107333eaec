package jobqueue_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/jobqueue"
)

func jobTenant(t *testing.T, n byte) storage.TenantScope {
	t.Helper()
	s, err := storage.NewTenantScope(uuid.UUID{n}, uuid.UUID{n, n})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// pollIDs returns the ids and values PollJobs yields.
func pollIDs(t *testing.T, r storage.Reader, state storage.JobState, after *jobqueue.JobAddr) (ids []uuid.UUID, values []string) {
	t.Helper()
	for row, err := range jobqueue.PollJobs(r, state, after) {
		if err != nil {
			t.Fatalf("poll %s: %v", state, err)
		}
		if row.State != state {
			t.Fatalf("poll %s yielded a %s row", state, row.State)
		}
		ids = append(ids, row.ID)
		values = append(values, string(row.Value))
	}
	return ids, values
}

func TestSystemJobMoves(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		a := jobqueue.JobAddr{Priority: 5, Created: 100, ID: uuid.UUID{0xA}}
		b := jobqueue.JobAddr{Priority: 5, Created: 101, ID: uuid.UUID{0xB}}
		c := jobqueue.JobAddr{Priority: 1, Created: 102, ID: uuid.UUID{0xC}}
		err := jobqueue.WriteJobs(e, false,
			jobqueue.JobMove{JobAddr: a, To: storage.JobQueued, Value: []byte("a")},
			jobqueue.JobMove{JobAddr: b, To: storage.JobQueued, Value: []byte("b")},
			jobqueue.JobMove{JobAddr: c, To: storage.JobQueued, Value: []byte("c")},
		)
		if err != nil {
			t.Fatal(err)
		}
		// A new job must be new.
		if err := jobqueue.WriteJobs(e, false, jobqueue.JobMove{JobAddr: a, To: storage.JobQueued, Value: []byte("again")}); !errors.Is(err, storage.ErrConflict) {
			t.Fatalf("enqueue of a job already queued: %v, want ErrConflict", err)
		}
		// Priority byte first, then FIFO.
		if ids, vals := pollIDs(t, e, storage.JobQueued, nil); !slices.Equal(ids, []uuid.UUID{c.ID, a.ID, b.ID}) || !slices.Equal(vals, []string{"c", "a", "b"}) {
			t.Fatalf("poll = %v %v", ids, vals)
		}
		if ids, _ := pollIDs(t, e, storage.JobQueued, &c); !slices.Equal(ids, []uuid.UUID{a.ID, b.ID}) {
			t.Fatalf("poll after c = %v", ids)
		}
		if ids, _ := pollIDs(t, e, storage.JobQueued, &b); len(ids) != 0 {
			t.Fatalf("poll after the last = %v", ids)
		}

		// Claim a durably, renew it in place, complete it.
		steps := []struct {
			name     string
			move     jobqueue.JobMove
			durable  bool
			present  storage.JobState
			absent   storage.JobState
			wantText string
		}{
			{"claim", jobqueue.JobMove{JobAddr: a, From: storage.JobQueued, To: storage.JobLeased, Value: []byte("a1"), Was: []byte("a")}, true, storage.JobLeased, storage.JobQueued, "a1"},
			{"heartbeat", jobqueue.JobMove{JobAddr: a, From: storage.JobLeased, To: storage.JobLeased, Value: []byte("a2"), Was: []byte("a1")}, false, storage.JobLeased, storage.JobQueued, "a2"},
			{"complete", jobqueue.JobMove{JobAddr: a, From: storage.JobLeased, To: storage.JobCompleted, Value: []byte("a3"), Was: []byte("a2")}, false, storage.JobCompleted, storage.JobLeased, "a3"},
			{"remove", jobqueue.JobMove{JobAddr: a, From: storage.JobCompleted, Was: []byte("a3")}, false, 0, storage.JobCompleted, ""},
		}
		for _, st := range steps {
			// The same move decided on another value conflicts, and
			// applies nothing.
			stale := st.move
			stale.Was = []byte("stale")
			if err := jobqueue.WriteJobs(e, st.durable, stale); !errors.Is(err, storage.ErrConflict) {
				t.Fatalf("%s from a value the job no longer holds: %v, want ErrConflict", st.name, err)
			}
			if err := jobqueue.WriteJobs(e, st.durable, st.move); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
			if st.present != 0 {
				v, err := jobqueue.GetJob(e, st.present, a)
				if err != nil || string(v) != st.wantText {
					t.Fatalf("%s: get %s = %q, %v", st.name, st.present, v, err)
				}
			}
			if _, err := jobqueue.GetJob(e, st.absent, a); !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("%s: job still %s: %v", st.name, st.absent, err)
			}
		}
	})
}

func TestSystemJobsRejectBadMoves(t *testing.T) {
	e := storage.NewMemoryEngine()
	a := jobqueue.JobAddr{ID: uuid.UUID{1}}
	good := jobqueue.JobMove{JobAddr: a, To: storage.JobQueued, Value: []byte("v")}
	tests := []struct {
		name string
		move jobqueue.JobMove
	}{
		{"no state", jobqueue.JobMove{JobAddr: a}},
		{"unknown to", jobqueue.JobMove{JobAddr: a, To: 9}},
		{"unknown from", jobqueue.JobMove{JobAddr: a, From: 0xFF, To: storage.JobQueued, Was: []byte("v")}},
		{"from a state, without the value decided on", jobqueue.JobMove{JobAddr: a, From: storage.JobQueued, To: storage.JobLeased}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A bad move poisons the whole batch: the good one is not written.
			if err := jobqueue.WriteJobs(e, false, good, tt.move); !errors.Is(err, jobqueue.ErrBadMove) {
				t.Fatalf("write: %v, want ErrBadMove", err)
			}
			if _, err := jobqueue.GetJob(e, storage.JobQueued, a); !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("part of a rejected batch landed: %v", err)
			}
		})
	}
	// A read of an unknown state is not a move: it fails as a key of an
	// unknown kind would.
	if _, err := jobqueue.GetJob(e, 0, a); !errors.Is(err, storage.ErrUnknownKind) {
		t.Errorf("get in state 0: %v, want storage.ErrUnknownKind", err)
	}
	for _, err := range jobqueue.PollJobs(e, 6, nil) {
		if !errors.Is(err, storage.ErrUnknownKind) {
			t.Errorf("poll state 6: %v, want storage.ErrUnknownKind", err)
		}
	}
}

func TestSystemJobsInvisibleToTenants(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		a := jobqueue.JobAddr{Priority: 0, Created: 1, ID: uuid.UUID{7}}
		if err := jobqueue.WriteJobs(e, false, jobqueue.JobMove{JobAddr: a, To: storage.JobQueued, Value: []byte("sys")}); err != nil {
			t.Fatal(err)
		}
		ts := jobTenant(t, 1)
		for kv, err := range e.Scan(storage.JobsInState(ts, storage.JobQueued)) {
			t.Fatalf("tenant scan saw %x (%v)", kv.Key, err)
		}
		if _, err := e.Get(storage.JobKey(ts, storage.JobQueued, a.Priority, a.Created, a.ID)); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("tenant get of the system job's address: %v", err)
		}
		// And the other way: a tenant job is not a system job.
		if err := e.Put(storage.JobKey(ts, storage.JobQueued, 0, 0, uuid.UUID{8}), []byte("tenant")); err != nil {
			t.Fatal(err)
		}
		if ids, _ := pollIDs(t, e, storage.JobQueued, nil); !slices.Equal(ids, []uuid.UUID{a.ID}) {
			t.Fatalf("system poll = %v, want only the system job", ids)
		}
	})
}

func TestSweepLeases(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		t1, t2 := jobTenant(t, 1), jobTenant(t, 2)
		put := func(k storage.Key, v string) {
			t.Helper()
			if err := e.Put(k, []byte(v)); err != nil {
				t.Fatal(err)
			}
		}
		id := uuid.UUID{0x42} // the same id everywhere
		put(storage.JobKey(t1, storage.JobLeased, 1, 10, id), "expired")
		put(storage.JobKey(t1, storage.JobQueued, 1, 11, id), "expired") // not leased
		put(storage.JobKey(t2, storage.JobLeased, 2, 20, id), "live")
		put(storage.JobKey(t2, storage.JobLeased, 3, 30, id), "expired")
		put(storage.JobKey(t2, storage.JobCompleted, 3, 31, id), "expired") // not leased
		if err := jobqueue.WriteJobs(e, false,
			jobqueue.JobMove{JobAddr: jobqueue.JobAddr{Priority: 4, Created: 40, ID: id}, To: storage.JobLeased, Value: []byte("expired")},
			jobqueue.JobMove{JobAddr: jobqueue.JobAddr{Priority: 4, Created: 41, ID: id}, To: storage.JobFailed, Value: []byte("expired")},
		); err != nil {
			t.Fatal(err)
		}

		var seen []string
		got, bad, err := jobqueue.SweepLeases(e, func(v []byte) bool {
			seen = append(seen, string(v))
			return bytes.Equal(v, []byte("expired"))
		})
		if err != nil || len(bad) != 0 {
			t.Fatal(bad, err)
		}
		if len(seen) != 4 {
			t.Fatalf("predicate saw %v, want the 4 leased rows only", seen)
		}
		type found struct {
			system  bool
			tenant  uuid.UUID
			created storage.Timestamp
		}
		var gotFound []found
		for _, j := range got {
			if j.ID != id || string(j.Value) != "expired" {
				t.Fatalf("swept %+v", j)
			}
			gotFound = append(gotFound, found{j.Scope.IsSystem(), j.Scope.Tenant, j.Created})
		}
		// System rows sort first, then tenants by prefix.
		want := []found{{true, uuid.Nil, 40}, {false, t1.Tenant(), 10}, {false, t2.Tenant(), 30}}
		if !slices.Equal(gotFound, want) {
			t.Fatalf("swept %+v, want %+v", gotFound, want)
		}
		if !got[1].Scope.Is(t1) || !got[2].Scope.Is(t2) || got[2].Priority != 3 {
			t.Fatalf("swept scopes %v %v", got[1].Scope, got[2].Scope)
		}
	})
}

func TestSystemJobsOnClosedEngine(t *testing.T) {
	storagetest.EachEngine(t, func(t *testing.T, env *storagetest.Env) {
		e := env.Engine
		a := jobqueue.JobAddr{ID: uuid.UUID{1}}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if err := jobqueue.WriteJobs(e, true, jobqueue.JobMove{JobAddr: a, To: storage.JobQueued}); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("write: %v", err)
		}
		if _, err := jobqueue.GetJob(e, storage.JobQueued, a); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("get: %v", err)
		}
		for _, after := range []*jobqueue.JobAddr{nil, &a} {
			n := 0
			for _, err := range jobqueue.PollJobs(e, storage.JobQueued, after) {
				n++
				if !errors.Is(err, storage.ErrClosed) {
					t.Errorf("poll: %v", err)
				}
			}
			if n != 1 {
				t.Errorf("poll yielded %d elements, want one error", n)
			}
		}
		if _, _, err := jobqueue.SweepLeases(e, func([]byte) bool { return true }); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("sweep: %v", err)
		}
	})
}
