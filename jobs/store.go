package jobs

import (
	"fmt"
	"math"
	"sync"
	"time"

	"telha.dev/core/storage"
	"telha.dev/core/storage/system/jobqueue"
)

// BadRow is a row of the jobs family whose key does not decode. Every
// operation that meets one steps over it and quarantines it: see
// Store.Quarantined.
type BadRow = jobqueue.BadRow

// maxQuarantined is how many distinct bad rows a Store remembers; it counts
// the rest.
const maxQuarantined = 1024

// Store is the job queues of one engine: a queue per tenant and the system
// queue. Open one Store per engine per process: a process's claims do not
// race each other (the queues' mutexes), and claims of several processes
// are made exclusive by the store (conditional moves; see the package
// documentation).
type Store struct {
	engine storage.Engine
	opts   Options

	mu      sync.Mutex
	tenants map[storage.TenantScope]*Queue
	system  *Queue

	quarantineMu sync.Mutex
	quarantined  []BadRow
	quarantineAt map[string]bool // keys of quarantined, as strings
	unlisted     int             // bad rows met past maxQuarantined
}

// NewStore returns the job store of engine e.
func NewStore(e storage.Engine, opts Options) (*Store, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, fmt.Errorf("jobs: new store: %w", storage.ErrNotOpen)
	}
	s := &Store{engine: e, opts: o, tenants: make(map[storage.TenantScope]*Queue), quarantineAt: make(map[string]bool)}
	s.system = newQueue(s, systemSpace{})
	storage.OnWipe(e, s, (*Store).forget)
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

// forget resets what the queue of a wiped tenant remembers of its rows (its
// claim cursor and its next backoff end), so that rows written after the
// wipe by another path (a restore, an import) are claimed. The Queue itself
// stays: workers hold it, and its mutex must remain the tenant's only one.
func (s *Store) forget(scope storage.TenantScope) {
	s.mu.Lock()
	q := s.tenants[scope]
	s.mu.Unlock()
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.cursor = nil
	q.nextDue = math.MinInt64
}

// quarantine records a bad row that an operation stepped over.
func (s *Store) quarantine(b *BadRow) {
	s.quarantineMu.Lock()
	defer s.quarantineMu.Unlock()
	switch {
	case s.quarantineAt[string(b.Key)]:
	case len(s.quarantined) == maxQuarantined:
		s.unlisted++
	default:
		s.quarantineAt[string(b.Key)] = true
		s.quarantined = append(s.quarantined, *b)
	}
}

// Quarantined returns the rows of the jobs family whose keys do not decode
// and that this Store's operations stepped over (claims, lists, purges,
// reaps), in the order first met: at most 1024 distinct rows, and the
// number of further meetings past that limit. Such a row can never be
// claimed or moved; an operator inspects it (telha debug decode-key jobs
// <hex>) and removes it.
func (s *Store) Quarantined() (rows []BadRow, unlisted int) {
	s.quarantineMu.Lock()
	defer s.quarantineMu.Unlock()
	return append([]BadRow(nil), s.quarantined...), s.unlisted
}

// Job times are Unix microseconds: a clock reading must leave room for the
// longest lease or backoff it is extended by.
var (
	minJobTime = storage.MinTimestamp.Time()
	maxJobTime = storage.MaxTimestamp.Time()
)

// now reads the clock, or fails with ErrBadClock when the reading, or the
// reading plus the longest lease or backoff, is not a job time.
func (s *Store) now() (time.Time, error) {
	t := s.opts.Clock()
	if t.Before(minJobTime) || t.After(maxJobTime.Add(-max(s.opts.LeaseDuration, s.opts.BackoffMax))) {
		return time.Time{}, fmt.Errorf("clock reads %s: %w", t.Format(time.RFC3339Nano), ErrBadClock)
	}
	return t, nil
}
