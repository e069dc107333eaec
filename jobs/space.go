package jobs

import (
	"bytes"
	"fmt"
	"iter"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/jobqueue"
)

// addr, row and move are the facade's vocabulary for a job's key components,
// a polled row and a state change. Tenant and system queues share them.
type (
	addr = jobqueue.JobAddr
	row  = jobqueue.JobRow
	move = jobqueue.JobMove
)

// less reports whether a sorts before b within one state: the key order.
func less(a, b addr) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if a.Created != b.Created {
		return a.Created < b.Created
	}
	return bytes.Compare(a.ID[:], b.ID[:]) < 0
}

// space is where a queue's rows live: one tenant's scope, or the system
// scope through the facade. It is the only place a queue touches storage.
type space interface {
	// get returns the value at a in state, or an error wrapping
	// storage.ErrNotFound.
	get(r storage.Reader, state State, a addr) ([]byte, error)
	// poll yields the rows of state in key order, strictly after *after
	// when after is not nil. A row whose key does not decode is yielded as
	// a *BadRow error and the poll goes on; any other error ends it.
	poll(r storage.Reader, state State, after *addr) iter.Seq2[row, error]
	// write applies moves as one atomic batch.
	write(e storage.Engine, durable bool, moves ...move) error
	String() string
}

// tenantSpace is one tenant's jobs, addressed with the public key
// constructors.
type tenantSpace struct {
	scope storage.TenantScope
}

func (t tenantSpace) String() string { return "tenant " + t.scope.String() }

func (t tenantSpace) key(a addr, state State) storage.Key {
	return storage.JobKey(t.scope, state, a.Priority, a.Created, a.ID)
}

func (t tenantSpace) get(r storage.Reader, state State, a addr) ([]byte, error) {
	return r.Get(t.key(a, state))
}

func (t tenantSpace) poll(r storage.Reader, state State, after *addr) iter.Seq2[row, error] {
	var from *storage.Key
	if after != nil {
		k := t.key(*after, state)
		from = &k
	}
	return jobqueue.Poll(r, storage.JobsInState(t.scope, state), from, fmt.Sprintf("%s jobs in state %s", t, state))
}

func (t tenantSpace) write(e storage.Engine, durable bool, moves ...move) error {
	return jobqueue.ApplyTenantMoves(e, durable, t.String(), t.key, moves...)
}

// systemSpace is the system queue, reached only through the facade.
type systemSpace struct{}

func (systemSpace) String() string { return "system" }

func (systemSpace) get(r storage.Reader, state State, a addr) ([]byte, error) {
	return jobqueue.GetJob(r, state, a)
}

func (systemSpace) poll(r storage.Reader, state State, after *addr) iter.Seq2[row, error] {
	return jobqueue.PollJobs(r, state, after)
}

func (systemSpace) write(e storage.Engine, durable bool, moves ...move) error {
	return jobqueue.WriteJobs(e, durable, moves...)
}
