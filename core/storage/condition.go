package storage

import (
	"bytes"
	"fmt"
)

// Conditional batches are the engines' compare-and-set: the one primitive
// that lets several processes on one store agree (a transaction clock, a
// name held by one tenant, a job leased to one worker). A batch with
// conditions is applied only if every condition holds at the instant the
// engine applies it, atomically with the batch's mutations: no write of
// anyone else lands between the check and the batch. Otherwise the engine
// refuses it whole, with ErrConflict, and applies nothing.
//
// Conditions are read against the store as it is before the batch: a batch
// may require a key absent and put it (create if absent), or require a
// value and replace it (compare and swap). Several conditions on one key
// must all hold. A version is a value: the rows that need one (a counter,
// a clock) keep it in their value, and a batch requires that value.

// ConditionKind says what a condition requires of its key.
type ConditionKind uint8

// The condition kinds.
const (
	// ConditionAbsent requires that the key hold no value.
	ConditionAbsent ConditionKind = iota + 1
	// ConditionValue requires that the key hold exactly Condition.Value.
	ConditionValue
)

// Valid reports whether k is one of the condition kinds.
func (k ConditionKind) Valid() bool { return k == ConditionAbsent || k == ConditionValue }

// Condition is one precondition of a batch.
type Condition struct {
	Kind  ConditionKind
	Key   Key
	Value []byte // the value required, for ConditionValue; nil otherwise
}

// Check returns nil if an engine may evaluate c: a known kind, a valid key
// (Key.Valid), and for ConditionValue a value of at most MaxValueLen
// bytes. Engines call it on every condition, as they call Mutation.Check.
func (c *Condition) Check() error {
	switch {
	case !c.Kind.Valid():
		return fmt.Errorf("condition kind %d: %w", c.Kind, ErrUnknownKind)
	case !c.Key.Valid():
		return ErrInvalidKey
	case c.Kind == ConditionAbsent && c.Value != nil:
		return fmt.Errorf("condition on %s: absent with a value: %w", c.Key, ErrUnknownKind)
	case len(c.Value) > MaxValueLen:
		return fmt.Errorf("condition on %s: value of %d bytes: %w", c.Key, len(c.Value), ErrValueTooLarge)
	}
	return nil
}

// Holds reports whether c holds for its key storing value (present false:
// the key holds nothing). Engines that read the key themselves decide
// with it, so that every engine applies one rule.
func (c *Condition) Holds(value []byte, present bool) bool {
	if c.Kind == ConditionAbsent {
		return !present
	}
	return present && bytes.Equal(value, c.Value)
}

// String names the condition for an error message, without its value.
func (c Condition) String() string {
	if c.Kind == ConditionAbsent {
		return fmt.Sprintf("%s absent", c.Key)
	}
	return fmt.Sprintf("%s holding a %d-byte value", c.Key, len(c.Value))
}
