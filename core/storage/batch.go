package storage

import (
	"bytes"
	"fmt"
	"iter"
	"slices"
)

// MutationKind says what a batch mutation does.
type MutationKind uint8

// The mutation kinds.
const (
	MutationPut MutationKind = iota + 1
	MutationDelete
	// MutationDeleteRange removes every key of a range (Mutation.Range).
	MutationDeleteRange
)

// Valid reports whether k is one of the mutation kinds.
func (k MutationKind) Valid() bool { return k >= MutationPut && k <= MutationDeleteRange }

// Mutation is one write of a batch.
type Mutation struct {
	Kind  MutationKind
	Key   Key       // zero for MutationDeleteRange
	Value []byte    // nil but for MutationPut
	Range ScanRange // set for MutationDeleteRange only
}

// Check returns nil if an engine may apply m: a known kind; for a range
// deletion a valid range (ScanRange.Valid), otherwise a valid key
// (Key.Valid); and for a put a value of at most MaxValueLen bytes. Engines
// call it on every mutation they apply, whatever Batch checked when the
// mutation was recorded.
func (m *Mutation) Check() error {
	switch {
	case !m.Kind.Valid():
		return fmt.Errorf("mutation kind %d: %w", m.Kind, ErrUnknownKind)
	case m.Kind == MutationDeleteRange:
		if !m.Range.Valid() {
			return ErrInvalidRange
		}
		return nil
	case !m.Key.Valid():
		return ErrInvalidKey
	case m.Kind == MutationPut && len(m.Value) > MaxValueLen:
		return fmt.Errorf("value of %d bytes: %w", len(m.Value), ErrValueTooLarge)
	}
	return nil
}

// Batch collects writes that an engine applies atomically, point writes and
// range deletions alike: the range deletions of a tenant erasure and the
// record of it land together or not at all. A batch may also carry
// conditions (RequireAbsent, RequireValue): then the engine applies it only
// if every condition holds, at the instant it applies it, and otherwise
// refuses it whole with ErrConflict (see Condition). An invalid
// mutation poisons the batch: Err reports it and engines refuse to apply any
// of it, so a half-built batch can never land partially.
//
// Engines do not trust a Batch: they check every mutation again when they
// apply it (Mutation.Check), so a batch changed after it was built, through
// unsafe or by a racing goroutine, is refused whole rather than stored in
// part or under a key no range can reach. The zero Batch is empty and ready
// to use; a nil *Batch records nothing and is refused with ErrNilBatch.
//
// A batch never puts a key inside a range it deletes, before or after the
// deletion: the put is refused with ErrRangeOverlap. Engines differ on what
// such a batch would mean (etcd refuses a transaction that does it), so the
// question is not left open. A point deletion inside a deleted range is
// fine: it removes nothing more.
type Batch struct {
	mutations  []Mutation
	conditions []Condition
	// ranges counts the range deletions among the mutations, so that a
	// batch without any checks no overlap.
	ranges int
	err    error
}

// Put records value at k. The value is copied, so the caller may reuse it.
func (b *Batch) Put(k Key, value []byte) { b.add(Mutation{Kind: MutationPut, Key: k, Value: value}) }

// Delete records the removal of k.
func (b *Batch) Delete(k Key) { b.add(Mutation{Kind: MutationDelete, Key: k}) }

// DeleteRange records the removal of every key of r. The bounds are
// copied, so nothing done to r afterwards changes the batch.
func (b *Batch) DeleteRange(r ScanRange) {
	r.lower = bytes.Clone(r.lower)
	r.upper = bytes.Clone(r.upper)
	b.add(Mutation{Kind: MutationDeleteRange, Range: r})
}

// add records m, with a copy of its value, once it passes Check and
// overlaps no range deletion of the batch.
func (b *Batch) add(m Mutation) {
	if b == nil || b.err != nil {
		return
	}
	if err := m.Check(); err != nil {
		b.err = fmt.Errorf("batch mutation %d: %w", len(b.mutations), err)
		return
	}
	if err := b.overlap(&m); err != nil {
		b.err = fmt.Errorf("batch mutation %d: %w", len(b.mutations), err)
		return
	}
	switch m.Kind {
	case MutationPut:
		m.Value = append(make([]byte, 0, len(m.Value)), m.Value...)
	case MutationDeleteRange:
		b.ranges++
	}
	b.mutations = append(b.mutations, m)
}

// overlap returns ErrRangeOverlap if m is a put inside a range the batch
// deletes, or a range deletion over a key the batch puts.
func (b *Batch) overlap(m *Mutation) error {
	switch {
	case m.Kind == MutationPut && b.ranges > 0:
		for i := range b.mutations {
			if r := &b.mutations[i]; r.Kind == MutationDeleteRange && r.Range.Contains(m.Key) {
				return fmt.Errorf("put %s inside deleted range %s: %w", m.Key, r.Range, ErrRangeOverlap)
			}
		}
	case m.Kind == MutationDeleteRange:
		for i := range b.mutations {
			if p := &b.mutations[i]; p.Kind == MutationPut && m.Range.Contains(p.Key) {
				return fmt.Errorf("delete range %s over put %s: %w", m.Range, p.Key, ErrRangeOverlap)
			}
		}
	}
	return nil
}

// RequireAbsent makes the batch conditional on k holding no value when the
// engine applies it. The batch may itself write k.
func (b *Batch) RequireAbsent(k Key) { b.require(Condition{Kind: ConditionAbsent, Key: k}) }

// RequireValue makes the batch conditional on k holding exactly value (an
// empty value is a value: k must exist) when the engine applies it. The
// value is copied. A row that must not have changed since it was read, a
// counter that is still what it was, a job still in the state it was
// claimed from: each is a RequireValue of what was read.
func (b *Batch) RequireValue(k Key, value []byte) {
	b.require(Condition{Kind: ConditionValue, Key: k, Value: value})
}

// require records c, with a copy of its value, once it passes Check.
func (b *Batch) require(c Condition) {
	if b == nil || b.err != nil {
		return
	}
	if err := c.Check(); err != nil {
		b.err = fmt.Errorf("batch condition %d: %w", len(b.conditions), err)
		return
	}
	if c.Kind == ConditionValue {
		c.Value = append(make([]byte, 0, len(c.Value)), c.Value...)
	}
	b.conditions = append(b.conditions, c)
}

// Err returns the first invalid mutation's error, if any, and ErrNilBatch
// for a nil batch.
func (b *Batch) Err() error {
	if b == nil {
		return ErrNilBatch
	}
	return b.err
}

// Len returns the number of recorded mutations; conditions do not count.
func (b *Batch) Len() int {
	if b == nil {
		return 0
	}
	return len(b.mutations)
}

// TenantScopes returns the tenant scopes that the batch's mutations
// (puts, deletes, range deletions) write, each once, in the order first
// written; rows of the system scope are not a tenant's. A writer that
// fences a batch on its tenants (tenants.RequireWritable) fences each of
// them, whatever rows the batch was handed.
func (b *Batch) TenantScopes() []TenantScope {
	var scopes []TenantScope
	for _, m := range b.All() {
		var s TenantScope
		switch {
		case m.Kind == MutationDeleteRange && !m.Range.system && len(m.Range.lower) >= ScopeLen:
			copy(s.p[:], m.Range.lower[:ScopeLen])
		case m.Kind != MutationDeleteRange && m.Key.n&systemBit == 0:
			copy(s.p[:], m.Key.b[:ScopeLen])
		default:
			continue
		}
		if !s.IsZero() && !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	return scopes
}

// Conditional reports whether the batch carries conditions.
func (b *Batch) Conditional() bool { return b != nil && len(b.conditions) > 0 }

// Conditions yields the recorded conditions in order, with their indexes,
// for engines, as All yields the mutations: each is a copy, and its Value
// the batch's own copy.
func (b *Batch) Conditions() iter.Seq2[int, Condition] {
	return func(yield func(int, Condition) bool) {
		if b == nil {
			return
		}
		for i, c := range b.conditions {
			if !yield(i, c) {
				return
			}
		}
	}
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

// Append records o's mutations and conditions after b's own, as copies:
// nothing done to o afterwards changes b. A poisoned or nil o poisons b.
func (b *Batch) Append(o *Batch) {
	if err := o.Err(); err != nil {
		if b != nil && b.err == nil {
			b.err = fmt.Errorf("batch: append: %w", err)
		}
		return
	}
	for _, m := range o.All() {
		switch m.Kind {
		case MutationPut:
			b.Put(m.Key, m.Value)
		case MutationDelete:
			b.Delete(m.Key)
		default:
			b.DeleteRange(m.Range)
		}
	}
	for _, c := range o.Conditions() {
		b.require(c)
	}
}

// Reset empties the batch for reuse, keeping its capacity.
func (b *Batch) Reset() {
	if b == nil {
		return
	}
	clear(b.mutations)
	b.mutations = b.mutations[:0]
	clear(b.conditions)
	b.conditions = b.conditions[:0]
	b.ranges = 0
	b.err = nil
}
