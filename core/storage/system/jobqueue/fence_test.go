package jobqueue_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"telha.dev/core/storage"
	"telha.dev/core/storage/storagetest"
	"telha.dev/core/storage/system/jobqueue"
	"telha.dev/core/storage/system/tenants"
)

// tenantKey returns the key of a job of the queue of scope in a state.
func tenantKey(scope storage.TenantScope) func(jobqueue.JobAddr, storage.JobState) storage.Key {
	return func(a jobqueue.JobAddr, s storage.JobState) storage.Key {
		return storage.JobKey(scope, s, a.Priority, a.Created, a.ID)
	}
}

// TestTenantMovesAreFenced adds a job to a tenant's queue, and claims
// one, while the tenant begins an import or an erasure: both are refused
// with storage.ErrTenantNotWritable and the queue is unchanged, as are
// the moves made after, while a tenant the registry does not hold keeps a
// working queue.
func TestTenantMovesAreFenced(t *testing.T) {
	a := jobqueue.JobAddr{Priority: 1, Created: 1, ID: uuid.UUID{1}}
	add := jobqueue.JobMove{JobAddr: jobqueue.JobAddr{Priority: 1, Created: 2, ID: uuid.UUID{2}}, To: storage.JobQueued, Value: []byte("new")}
	claim := jobqueue.JobMove{JobAddr: a, From: storage.JobQueued, To: storage.JobLeased, Value: []byte("claimed"), Was: []byte("a")}
	for _, state := range []tenants.State{tenants.Importing, tenants.Erasing} {
		for _, m := range []jobqueue.JobMove{add, claim} {
			e := storage.NewMemoryEngine()
			t.Cleanup(func() { _ = e.Close() })
			scope := jobTenant(t, 1)
			key := tenantKey(scope)
			if err := tenants.Provision(e, scope, "queue"); err != nil {
				t.Fatal(err)
			}
			first := jobqueue.JobMove{JobAddr: a, To: storage.JobQueued, Value: []byte("a")}
			if err := jobqueue.ApplyTenantMoves(e, false, "test", key, first); err != nil {
				t.Fatal(err)
			}
			racing := &storagetest.RacingWriter{Engine: e}
			var changeErr error
			racing.Arm(func() { changeErr = tenants.SetState(e, scope, state) })
			err := jobqueue.ApplyTenantMoves(racing, false, "test", key, m)
			if changeErr != nil {
				t.Fatal(changeErr)
			}
			if !errors.Is(err, storage.ErrTenantNotWritable) {
				t.Errorf("%s of a job as the tenant became %s: %v, want ErrTenantNotWritable", m.To, state, err)
			}
			if err := jobqueue.ApplyTenantMoves(e, false, "test", key, m); !errors.Is(err, storage.ErrTenantNotWritable) {
				t.Errorf("%s of a job in a tenant %s: %v, want ErrTenantNotWritable", m.To, state, err)
			}
			for _, s := range []storage.JobState{storage.JobQueued, storage.JobLeased} {
				var n int
				for _, err := range jobqueue.Poll(e, storage.JobsInState(scope, s), nil, "test") {
					if err != nil {
						t.Fatal(err)
					}
					n++
				}
				if want := map[storage.JobState]int{storage.JobQueued: 1}[s]; n != want {
					t.Errorf("after the refused %s: %d jobs %s, want %d", m.To, n, s, want)
				}
			}
		}
	}

	e := storage.NewMemoryEngine()
	t.Cleanup(func() { _ = e.Close() })
	unknown := jobTenant(t, 2)
	if err := jobqueue.ApplyTenantMoves(e, false, "test", tenantKey(unknown), add); err != nil {
		t.Errorf("a job of a tenant the registry does not hold: %v", err)
	}
}
