package storage

import "fmt"

// MutationKind says what a batch mutation does.
type MutationKind uint8

// The mutation kinds.
const (
	MutationPut MutationKind = iota + 1
	MutationDelete
)

// Mutation is one write of a batch.
type Mutation struct {
	Kind  MutationKind
	Key   Key
	Value []byte // nil for MutationDelete
}

// Batch collects writes that an engine applies atomically. An invalid key
// poisons the batch: Err reports it and engines refuse to apply any of it,
// so a half-built batch can never land partially.
type Batch struct {
	mutations []Mutation
	err       error
}

// Put records value at k. The value is copied, so the caller may reuse it.
func (b *Batch) Put(k Key, value []byte) {
	b.add(Mutation{Kind: MutationPut, Key: k, Value: append(make([]byte, 0, len(value)), value...)})
}

// Delete records the removal of k.
func (b *Batch) Delete(k Key) { b.add(Mutation{Kind: MutationDelete, Key: k}) }

func (b *Batch) add(m Mutation) {
	if b.err != nil {
		return
	}
	if !m.Key.Valid() {
		b.err = fmt.Errorf("batch mutation %d: %w", len(b.mutations), ErrInvalidKey)
		return
	}
	b.mutations = append(b.mutations, m)
}

// Err returns the first invalid mutation's error, if any.
func (b *Batch) Err() error { return b.err }

// Len returns the number of recorded mutations.
func (b *Batch) Len() int { return len(b.mutations) }

// Mutations returns the recorded mutations in order. Engines apply them;
// callers must not modify the slice.
func (b *Batch) Mutations() []Mutation { return b.mutations }

// Reset empties the batch for reuse, keeping its capacity.
func (b *Batch) Reset() {
	clear(b.mutations)
	b.mutations = b.mutations[:0]
	b.err = nil
}
