package tenants

import "fmt"

// State is where a tenant is in its life. A tenant is provisioned Active;
// an erasure marks it Erasing before it deletes anything and Erased once
// the verification scan counted zero rows. The zero value is not a state.
type State uint8

// The states, in the only order a tenant passes through them.
const (
	Active  State = 1
	Erasing State = 2
	Erased  State = 3
)

var stateNames = [...]string{Active: "active", Erasing: "erasing", Erased: "erased"}

// Valid reports whether s is one of the three states.
func (s State) Valid() bool { return s >= Active && s <= Erased }

// String returns "active", "erasing" or "erased".
func (s State) String() string {
	if !s.Valid() {
		return fmt.Sprintf("State(%d)", uint8(s))
	}
	return stateNames[s]
}

// canBecome reports whether a tenant in state s may move to state next:
// Active to Erasing, Erasing to Erased, and Erasing to Erasing, so that an
// interrupted erasure resumes. Nothing leaves Erased: the record stays as
// the proof of the erasure and the scope is never provisioned again.
func (s State) canBecome(next State) bool {
	switch s {
	case Active:
		return next == Erasing
	case Erasing:
		return next == Erasing || next == Erased
	}
	return false
}
