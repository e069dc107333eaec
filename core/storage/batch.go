package storage

import (
	"fmt"
	"iter"
)

// MutationKind says what a batch mutation does.
type MutationKind uint8

// The mutation kinds.
const (
	MutationPut MutationKind = iota + 1
	MutationDelete
)

// Valid reports whether k is one of the mutation kinds.
func (k MutationKind) Valid() bool { return k == MutationPut || k == MutationDelete }

// Mutation is one write of a batch.
type Mutation struct {
	Kind  MutationKind
	Key   Key
	Value []byte // nil for MutationDelete
}

// Check returns nil if an engine may apply m: a known kind, a valid key
// (Key.Valid), and for a put a value of at most MaxValueLen bytes. Engines
// call it on every mutation they apply, whatever Batch checked when the
// mutation was recorded.
func (m *Mutation) Check() error {
	switch {
	case !m.Kind.Valid():
		return fmt.Errorf("mutation kind %d: %w", m.Kind, ErrUnknownKind)
	case !m.Key.Valid():
		return ErrInvalidKey
	case m.Kind == MutationPut && len(m.Value) > MaxValueLen:
		return fmt.Errorf("value of %d bytes: %w", len(m.Value), ErrValueTooLarge)
	}
	return nil
}

// Batch collects writes that an engine applies atomically. An invalid
// mutation poisons the batch: Err reports it and engines refuse to apply any
// of it, so a half-built batch can never land partially.
//
// Engines do not trust a Batch: they check every mutation again when they
// apply it (Mutation.Check), so a batch changed after it was built, through
// unsafe or by a racing goroutine, is refused whole rather than stored in
// part or under a key no range can reach. The zero Batch is empty and ready
// to use; a nil *Batch records nothing and is refused with ErrNilBatch.
type Batch struct {
	mutations []Mutation
	err       error
}

// Put records value at k. The value is copied, so the caller may reuse it.
func (b *Batch) Put(k Key, value []byte) { b.add(Mutation{Kind: MutationPut, Key: k, Value: value}) }

// Delete records the removal of k.
func (b *Batch) Delete(k Key) { b.add(Mutation{Kind: MutationDelete, Key: k}) }

// add records m, with a copy of its value, once it passes Check.
func (b *Batch) add(m Mutation) {
	if b == nil || b.err != nil {
		return
	}
	if err := m.Check(); err != nil {
		b.err = fmt.Errorf("batch mutation %d: %w", len(b.mutations), err)
		return
	}
	if m.Kind == MutationPut {
		m.Value = append(make([]byte, 0, len(m.Value)), m.Value...)
	}
	b.mutations = append(b.mutations, m)
}

// Err returns the first invalid mutation's error, if any, and ErrNilBatch
// for a nil batch.
func (b *Batch) Err() error {
	if b == nil {
		return ErrNilBatch
	}
	return b.err
}

// Len returns the number of recorded mutations.
func (b *Batch) Len() int {
	if b == nil {
		return 0
	}
	return len(b.mutations)
}

// All yields the recorded mutations in order, with their indexes, for
// engines. Each is a copy: changing it changes nothing in the batch. Its
// Value is the batch's own copy of the value, which nothing else writes; an
// engine that keeps values after Write returns copies them, since the
// caller can still reach them.
func (b *Batch) All() iter.Seq2[int, Mutation] {
	return func(yield func(int, Mutation) bool) {
		if b == nil {
			return
		}
		for i, m := range b.mutations {
			if !yield(i, m) {
				return
			}
		}
	}
}

// Reset empties the batch for reuse, keeping its capacity.
func (b *Batch) Reset() {
	if b == nil {
		return
	}
	clear(b.mutations)
	b.mutations = b.mutations[:0]
	b.err = nil
}
