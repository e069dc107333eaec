package jobs

import (
	"fmt"
	"sync"
	"time"

	"telha.dev/core/storage"
)

// Store is the job queues of one engine: a queue per tenant and the system
// queue. Open one Store per engine per process: the queues' mutexes are what
// make claims exclusive (see the package documentation).
type Store struct {
	engine storage.Engine
	opts   Options

	mu      sync.Mutex
	tenants map[storage.TenantScope]*Queue
	system  *Queue
}

// NewStore returns the job store of engine e.
func NewStore(e storage.Engine, opts Options) (*Store, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Store{engine: e, opts: o, tenants: make(map[storage.TenantScope]*Queue)}
	s.system = newQueue(s, systemSpace{})
	return s, nil
}

// Tenant returns the queue of one tenant. Every call for the same scope
// returns the same Queue, so all of the tenant's workers share its mutex.
func (s *Store) Tenant(scope storage.TenantScope) (*Queue, error) {
	if scope.IsZero() {
		return nil, fmt.Errorf("jobs: tenant queue: %w", storage.ErrNilScope)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q, ok := s.tenants[scope]
	if !ok {
		q = newQueue(s, tenantSpace{scope: scope})
		s.tenants[scope] = q
	}
	return q, nil
}

// System returns the system queue: jobs that belong to no tenant. Tenant
// queues never see them.
func (s *Store) System() *Queue { return s.system }

// now reads the clock.
func (s *Store) now() time.Time { return s.opts.Clock() }
