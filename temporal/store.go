package temporal

import (
	"errors"
	"fmt"
	"sync"

	"telha.dev/core/storage"
)

// Indexer lets another module keep a derived index (such as the bitmap
// predicate index of telha.dev/vector/bitmap) in the same atomic batch as
// the node writes it derives from.
//
// IndexNode is called once per node write (assertion, correction or
// deletion), under the store's write lock, before the batch is applied.
// before and after are the node's current version — valid at the write's
// transaction time, as known just before and just after the write — and
// either may be nil (no such version, or a tombstone). The indexer adds its
// rows to b; returning an error aborts the whole write. It must not write
// to the engine directly. Reads of the engine see the state before b.
type Indexer interface {
	IndexNode(b *storage.Batch, scope storage.TenantScope, before, after *Version) error
}

// EdgeTypes turns an edge type name into the hash of the adjacency keys.
// A persisted registry (EdgeTypeRegistry, the default) adds its
// registration row to b, so a type is registered in the same batch as its
// first edge, and fails loud on a hash collision. tx is the write's
// transaction time.
type EdgeTypes interface {
	Resolve(b *storage.Batch, scope storage.TenantScope, name string, tx storage.Timestamp) (storage.EdgeTypeHash, error)
}

// Options configure a Store.
type Options struct {
	// Clock hands out transaction times; nil means a new wall Clock.
	Clock *Clock
	// EdgeTypes resolves edge type names; nil means a new
	// EdgeTypeRegistry over the store's engine.
	EdgeTypes EdgeTypes
	// Indexers see every node write; see Indexer.
	Indexers []Indexer
}

// Store is the bitemporal store of one engine. It is safe for concurrent
// use.
type Store struct {
	engine    storage.Engine
	clock     *Clock
	edgeTypes EdgeTypes

	mu       sync.Mutex // serialises writes
	indexers []Indexer
	tenants  map[storage.TenantScope]*tenantState // what writes know of each tenant
}

// tenantState is what a Store knows of a tenant between its writes: the
// tenant's transaction clock and generation in the store as the Store last
// wrote or read them, and that the Clock has seen the tenant's stored
// times. A write is conditional on both counters (see write): it lands
// unless another process wrote the tenant, or changed it under every
// cache (a wipe, an erasure, an import), since.
type tenantState struct {
	clock      storage.Counter
	generation storage.Counter
}

// Open returns a Store over e. It reads nothing yet: each tenant's
// transaction-time high-water mark, clock and generation are read before
// that tenant's first write. A wipe of a tenant (storage.WipeTenant), or a
// generation moved by another process, makes the store read them again.
func Open(e storage.Engine, opts Options) *Store {
	s := &Store{
		engine:    e,
		clock:     opts.Clock,
		edgeTypes: opts.EdgeTypes,
		indexers:  append([]Indexer(nil), opts.Indexers...),
		tenants:   make(map[storage.TenantScope]*tenantState),
	}
	if s.clock == nil {
		s.clock = NewClock(nil)
	}
	if s.edgeTypes == nil {
		s.edgeTypes = NewEdgeTypeRegistry(e, nil)
	}
	storage.OnWipe(e, s, (*Store).forget)
	return s
}

// forget drops what the store knows of a wiped tenant. The clock keeps its
// time: transaction times never go back.
func (s *Store) forget(scope storage.TenantScope) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tenants, scope)
}

// Engine returns the store's engine, for modules that read their own
// families next to the store's (graph, the bitmap index).
func (s *Store) Engine() storage.Engine { return s.engine }

// Clock returns the store's transaction clock.
func (s *Store) Clock() *Clock { return s.clock }

// tenant returns what the Store knows of scope, reading it when it knows
// nothing: the tenant's clock and generation, and the latest transaction
// time stored for it, which the Clock is raised above (the first row of
// the tenant's tx_time_index is its latest tx start, because the key
// inverts it). Must hold s.mu.
func (s *Store) tenant(scope storage.TenantScope) (*tenantState, error) {
	if st := s.tenants[scope]; st != nil {
		return st, nil
	}
	g, err := storage.ReadGeneration(s.engine, scope)
	if err != nil {
		return nil, err
	}
	c, err := storage.ReadTxClock(s.engine, scope)
	if err != nil {
		return nil, err
	}
	for kv, err := range s.engine.Scan(storage.TenantAll(scope, storage.TxTimeIndex)) {
		if err != nil {
			return nil, fmt.Errorf("read tx high-water mark of %s: %w", scope, err)
		}
		p, err := storage.DecodeTxTimeIndex(kv.Key)
		if err != nil {
			return nil, fmt.Errorf("read tx high-water mark of %s: %w", scope, err)
		}
		s.clock.Observe(p.TxStart)
		break
	}
	st := &tenantState{clock: c, generation: g}
	s.tenants[scope] = st
	return st, nil
}

// check rejects a Store without an engine (the zero Store, or Open(nil))
// and the zero scope, before any key is built from it.
func (s *Store) check(scope storage.TenantScope) error {
	if s.engine == nil {
		return fmt.Errorf("temporal: %w", storage.ErrNotOpen)
	}
	return checkScope(scope)
}

// checkScope rejects the zero scope.
func checkScope(scope storage.TenantScope) error {
	if scope.IsZero() {
		return fmt.Errorf("temporal: %w", storage.ErrNilScope)
	}
	return nil
}

// notFound maps the engine's ErrNotFound to this package's.
func notFound(err error) bool { return errors.Is(err, storage.ErrNotFound) }

func isUnknownEdgeType(err error) bool { return errors.Is(err, ErrUnknownEdgeType) }
