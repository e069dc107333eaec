package temporal

import (
	"encoding/binary"
	"fmt"
	"sync"

	"telha.dev/core/storage"
)

// EdgeTypeRegistry is the persisted registry of edge type names of each
// tenant, and the Store's EdgeTypes unless Options name another. Adjacency
// keys carry only the 8-byte hash of a type name, so the registry records
// which name owns each hash and fails loud (ErrEdgeTypeCollision) when a
// second name hashes to a registered one, instead of merging two types
// into one adjacency range.
//
// Each registration is one row of the schema family, under a label hash
// derived from the type hash in a namespace of its own, so the row of a
// type hash is found with one short prefix scan (storage.EdgeTypeHistory):
//
//	key    storage.EdgeTypeKey(scope, hash, tx of registration)
//	value  [format version 1][kind 'E'][edge type hash 8, big-endian][name]
//
// Lookups by hash (Name, Hash) are cached. Registration (Resolve) never
// trusts the cache: it reads the row, so that a tenant whose rows were
// deleted gets its registration written again with its next edge. The
// cache of a tenant is also dropped when the tenant is wiped
// (storage.WipeTenant).
type EdgeTypeRegistry struct {
	engine storage.Engine
	hash   func(string) storage.EdgeTypeHash

	mu    sync.RWMutex
	names map[storage.TenantScope]map[storage.EdgeTypeHash]string // registrations read back
}

const (
	registryVersion = 1
	registryKind    = 'E'
	registryHeader  = 10
)

// NewEdgeTypeRegistry returns the registry over e. hash is the name hash,
// storage.HashEdgeType when nil; tests inject a colliding one.
func NewEdgeTypeRegistry(e storage.Engine, hash func(string) storage.EdgeTypeHash) *EdgeTypeRegistry {
	if hash == nil {
		hash = storage.HashEdgeType
	}
	r := &EdgeTypeRegistry{engine: e, hash: hash, names: make(map[storage.TenantScope]map[storage.EdgeTypeHash]string)}
	storage.OnWipe(e, r, (*EdgeTypeRegistry).forget)
	return r
}

// Resolve returns the hash of name, registering it in b when no row holds
// it. It implements EdgeTypes. A different name already registered with
// the same hash fails with ErrEdgeTypeCollision.
func (r *EdgeTypeRegistry) Resolve(b *storage.Batch, scope storage.TenantScope, name string, tx storage.Timestamp) (storage.EdgeTypeHash, error) {
	if err := r.check(scope); err != nil {
		return 0, err
	}
	h := r.hash(name)
	got, err := r.read(scope, h)
	switch {
	case err == nil && got == name:
		return h, nil
	case err == nil:
		return 0, fmt.Errorf("edge type %q: hash %016x is registered to %q: %w", name, uint64(h), got, ErrEdgeTypeCollision)
	case !isUnknownEdgeType(err):
		return 0, err
	}
	// Not persisted: register in the caller's batch. The cache learns the
	// name only once a later lookup reads the row back, so a batch that
	// never lands leaves no trace.
	val := make([]byte, 0, registryHeader+len(name))
	val = append(val, registryVersion, registryKind)
	val = binary.BigEndian.AppendUint64(val, uint64(h))
	val = append(val, name...)
	b.Put(storage.EdgeTypeKey(scope, h, tx), val)
	return h, nil
}

// Hash returns the hash of a registered name; ErrUnknownEdgeType when the
// name is not registered, ErrEdgeTypeCollision when its hash belongs to
// another name.
func (r *EdgeTypeRegistry) Hash(scope storage.TenantScope, name string) (storage.EdgeTypeHash, error) {
	if err := r.check(scope); err != nil {
		return 0, err
	}
	h := r.hash(name)
	got, err := r.Name(scope, h)
	if err != nil {
		return 0, fmt.Errorf("edge type %q: %w", name, err)
	}
	if got != name {
		return 0, fmt.Errorf("edge type %q: hash %016x is registered to %q: %w", name, uint64(h), got, ErrEdgeTypeCollision)
	}
	return h, nil
}

// Name returns the registered name of type hash h, or ErrUnknownEdgeType.
func (r *EdgeTypeRegistry) Name(scope storage.TenantScope, h storage.EdgeTypeHash) (string, error) {
	if err := r.check(scope); err != nil {
		return "", err
	}
	r.mu.RLock()
	name, ok := r.names[scope][h]
	r.mu.RUnlock()
	if ok {
		return name, nil
	}
	return r.read(scope, h)
}

// check rejects a registry without an engine (the zero value, or one made
// over a nil engine) and the zero scope.
func (r *EdgeTypeRegistry) check(scope storage.TenantScope) error {
	if r.engine == nil {
		return fmt.Errorf("edge type registry: %w", storage.ErrNotOpen)
	}
	return checkScope(scope)
}

// read returns the name in the registration row of h, and caches it; when
// there is no row it drops any cached name, which the row no longer backs.
func (r *EdgeTypeRegistry) read(scope storage.TenantScope, h storage.EdgeTypeHash) (string, error) {
	for kv, err := range r.engine.Scan(storage.EdgeTypeHistory(scope, h)) {
		if err != nil {
			return "", fmt.Errorf("edge type %016x: %w", uint64(h), err)
		}
		name, err := decodeRegistration(kv.Value, h)
		if err != nil {
			return "", err
		}
		r.mu.Lock()
		if r.names[scope] == nil {
			r.names[scope] = make(map[storage.EdgeTypeHash]string)
		}
		r.names[scope][h] = name
		r.mu.Unlock()
		return name, nil
	}
	r.mu.Lock()
	delete(r.names[scope], h)
	r.mu.Unlock()
	return "", fmt.Errorf("edge type %016x: %w", uint64(h), ErrUnknownEdgeType)
}

// forget drops the cached names of a wiped tenant.
func (r *EdgeTypeRegistry) forget(scope storage.TenantScope) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.names, scope)
}

func decodeRegistration(b []byte, h storage.EdgeTypeHash) (string, error) {
	if len(b) <= registryHeader || b[0] != registryVersion || b[1] != registryKind {
		return "", fmt.Errorf("edge type %016x: registration of %d bytes: %w", uint64(h), len(b), ErrCorrupt)
	}
	if got := storage.EdgeTypeHash(binary.BigEndian.Uint64(b[2:])); got != h {
		return "", fmt.Errorf("edge type %016x: registration holds hash %016x: %w", uint64(h), uint64(got), ErrCorrupt)
	}
	return string(b[registryHeader:]), nil
}
