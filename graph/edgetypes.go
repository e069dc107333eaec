package graph

import (
	"encoding/binary"
	"fmt"
	"sync"

	"telha.dev/core/storage"
)

// EdgeTypes is the persisted registry of edge type names of each tenant.
// Each registration is one row of the schema family, under a label hash
// derived from the type hash in a namespace of its own, so the row of a
// type hash is found with one short prefix scan (storage.EdgeTypeHistory):
//
//	key    storage.EdgeTypeKey(scope, hash, tx of registration)
//	value  [format version 1][kind 'E'][edge type hash 8, big-endian][name]
//
// Rows are immutable once written; lookups cache them.
type EdgeTypes struct {
	engine storage.Engine
	hash   func(string) storage.EdgeTypeHash

	mu    sync.RWMutex
	names map[scopedHash]string // persisted registrations seen
}

type scopedHash struct {
	scope storage.TenantScope
	hash  storage.EdgeTypeHash
}

const (
	registryVersion = 1
	registryKind    = 'E'
	registryHeader  = 10
)

// NewEdgeTypes returns the registry over e. hash is the name hash,
// storage.HashEdgeType when nil; tests inject a colliding one.
func NewEdgeTypes(e storage.Engine, hash func(string) storage.EdgeTypeHash) *EdgeTypes {
	if hash == nil {
		hash = storage.HashEdgeType
	}
	return &EdgeTypes{engine: e, hash: hash, names: make(map[scopedHash]string)}
}

// Resolve returns the hash of name, registering it in b when it is new.
// It implements temporal.EdgeTypes. A different name already registered
// with the same hash fails with ErrEdgeTypeCollision.
func (r *EdgeTypes) Resolve(b *storage.Batch, scope storage.TenantScope, name string, tx storage.Timestamp) (storage.EdgeTypeHash, error) {
	h := r.hash(name)
	got, err := r.Name(scope, h)
	switch {
	case err == nil && got == name:
		return h, nil
	case err == nil:
		return 0, fmt.Errorf("edge type %q: hash %016x is registered to %q: %w", name, uint64(h), got, ErrEdgeTypeCollision)
	case !isUnknown(err):
		return 0, err
	}
	// Not persisted yet: register in the caller's batch. The cache learns
	// the name only once a later lookup reads the row back, so a batch that
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
func (r *EdgeTypes) Hash(scope storage.TenantScope, name string) (storage.EdgeTypeHash, error) {
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
func (r *EdgeTypes) Name(scope storage.TenantScope, h storage.EdgeTypeHash) (string, error) {
	k := scopedHash{scope, h}
	r.mu.RLock()
	name, ok := r.names[k]
	r.mu.RUnlock()
	if ok {
		return name, nil
	}
	for kv, err := range r.engine.Scan(storage.EdgeTypeHistory(scope, h)) {
		if err != nil {
			return "", fmt.Errorf("edge type %016x: %w", uint64(h), err)
		}
		name, err := decodeRegistration(kv.Value, h)
		if err != nil {
			return "", err
		}
		r.mu.Lock()
		r.names[k] = name
		r.mu.Unlock()
		return name, nil
	}
	return "", fmt.Errorf("edge type %016x: %w", uint64(h), ErrUnknownEdgeType)
}

func decodeRegistration(b []byte, h storage.EdgeTypeHash) (string, error) {
	if len(b) <= registryHeader || b[0] != registryVersion || b[1] != registryKind {
		return "", fmt.Errorf("edge type %016x: row of %d bytes: %w", uint64(h), len(b), ErrCorrupt)
	}
	if got := storage.EdgeTypeHash(binary.BigEndian.Uint64(b[2:])); got != h {
		return "", fmt.Errorf("edge type %016x: row holds hash %016x: %w", uint64(h), uint64(got), ErrCorrupt)
	}
	return string(b[registryHeader:]), nil
}
