package tenants

import "fmt"

// State is where a tenant is in its life. A tenant is provisioned Active;
// an import marks it Importing while it writes the rows, and Active again
// once they are all durable (or, after a crash, once they are wiped
// again); an erasure marks it Erasing before it deletes anything and
// Erased once the verification scan counted zero rows. The zero value is
// not a state.
type State uint8

// The states. Their values are the bytes of the registry rows: Importing
// came last, so it has the highest.
const (
	Active    State = 1
	Erasing   State = 2
	Erased    State = 3
	Importing State = 4
)

var stateNames = [...]string{Active: "active", Erasing: "erasing", Erased: "erased", Importing: "importing"}

// Valid reports whether s is one of the four states.
func (s State) Valid() bool { return s >= Active && s <= Importing }

// String returns "active", "importing", "erasing" or "erased".
func (s State) String() string {
	if !s.Valid() {
		return fmt.Sprintf("State(%d)", uint8(s))
	}
	return stateNames[s]
}

// canBecome reports whether a tenant in state s may move to state next:
// Active to Importing (an import's rows are being written), Importing to
// Active (they are all durable, or they were wiped), Active or Importing
// to Erasing, Erasing to Erasing (an interrupted erasure resumes), and
// Erasing to Erased. Nothing leaves Erased: the record stays as the proof
// of the erasure and the scope is never provisioned again.
func (s State) canBecome(next State) bool {
	switch s {
	case Active:
		return next == Importing || next == Erasing
	case Importing:
		return next == Active || next == Erasing
	case Erasing:
		return next == Erasing || next == Erased
	}
	return false
}
