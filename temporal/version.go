package temporal

import (
	"fmt"
	"slices"

	"github.com/google/uuid"

	"telha.dev/core/storage"
)

// Forever is the open end of a valid-time or transaction-time interval.
const Forever = storage.MaxTimestamp

// Interval is the half-open valid-time interval [Start, End). End may be
// Forever.
type Interval struct {
	Start, End storage.Timestamp
}

// Check returns ErrInvalidInterval unless Start < End.
func (iv Interval) Check() error {
	if iv.Start >= iv.End {
		return fmt.Errorf("valid time [%s, %s): %w", iv.Start, iv.End, ErrInvalidInterval)
	}
	return nil
}

// Contains reports whether t lies in [Start, End).
func (iv Interval) Contains(t storage.Timestamp) bool { return iv.Start <= t && t < iv.End }

// overlaps reports whether iv and o share a point.
func (iv Interval) overlaps(o Interval) bool { return iv.Start < o.End && o.Start < iv.End }

// AsOf is a bitemporal read point: what was true at valid time Valid, as the
// store knew it at transaction time Tx.
type AsOf struct {
	Valid, Tx storage.Timestamp
}

// Current reads what is true at valid time t according to everything the
// store knows.
func Current(t storage.Timestamp) AsOf { return AsOf{Valid: t, Tx: Forever} }

// EntityKind says whether a version is a node's or an edge's. Its numbers
// are stored in the value format, so they never change.
type EntityKind uint8

// The entity kinds.
const (
	EntityNode EntityKind = 0x00
	EntityEdge EntityKind = 0x01
)

// Valid reports whether k is a known kind.
func (k EntityKind) Valid() bool { return k <= EntityEdge }

// String returns "node" or "edge".
func (k EntityKind) String() string {
	switch k {
	case EntityNode:
		return "node"
	case EntityEdge:
		return "edge"
	}
	return fmt.Sprintf("EntityKind(%d)", uint8(k))
}

// indexKind is the kind byte of k's rows in the temporal indexes.
func (k EntityKind) indexKind() storage.IndexKind {
	if k == EntityEdge {
		return storage.IndexEdge
	}
	return storage.IndexNode
}

// entityOf is the entity kind of a temporal index row of kind k.
func entityOf(k storage.IndexKind) EntityKind {
	if k == storage.IndexEdge {
		return EntityEdge
	}
	return EntityNode
}

// Version is one version record of a node or an edge.
type Version struct {
	Kind      EntityKind
	ID        uuid.UUID
	Valid     Interval
	TxStart   storage.Timestamp
	TxEnd     storage.Timestamp // Forever while the version is still known
	Tombstone bool              // the entity does not exist during Valid
	Labels    []string          // sorted, distinct
	Props     Properties

	// Edges only; immutable across an edge's versions.
	From, To uuid.UUID
	Type     string
}

// knownAt reports whether the store knew v at transaction time tx.
func (v *Version) knownAt(tx storage.Timestamp) bool {
	return v.TxStart <= tx && (v.TxEnd == Forever || tx < v.TxEnd)
}

// visibleAt reports whether v is the live answer of an as-of read at a.
func (v *Version) visibleAt(a AsOf) bool {
	return v.Valid.Contains(a.Valid) && v.knownAt(a.Tx)
}

// Equal reports whether v and w are the same record.
func (v *Version) Equal(w *Version) bool {
	return v.Kind == w.Kind && v.ID == w.ID && v.Valid == w.Valid && v.TxStart == w.TxStart &&
		v.TxEnd == w.TxEnd && v.Tombstone == w.Tombstone && slices.Equal(v.Labels, w.Labels) &&
		v.Props.Equal(w.Props) && v.From == w.From && v.To == w.To && v.Type == w.Type
}

// key returns the version's primary key.
func (v *Version) key(s storage.TenantScope) storage.Key {
	if v.Kind == EntityEdge {
		return storage.EdgeVersionKey(s, v.ID, v.Valid.Start, v.TxStart)
	}
	return storage.NodeVersionKey(s, v.ID, v.Valid.Start, v.TxStart)
}

// NodeFact is an assertion about a node over a valid-time interval.
type NodeFact struct {
	ID     uuid.UUID
	Valid  Interval
	Labels []string
	Props  Properties
}

// EdgeFact is an assertion about a typed, directed edge over a valid-time
// interval.
type EdgeFact struct {
	ID       uuid.UUID
	From, To uuid.UUID
	Type     string
	Valid    Interval
	Labels   []string
	Props    Properties
}

// normalLabels returns labels sorted and deduplicated, the stored form.
func normalLabels(labels []string) ([]string, error) {
	out := slices.Clone(labels)
	slices.Sort(out)
	out = slices.Compact(out)
	for _, l := range out {
		if l == "" {
			return nil, fmt.Errorf("empty label: %w", ErrInvalidFact)
		}
	}
	return out, nil
}

// cloneProps copies p so that a caller's later edits cannot reach stored
// versions; it rejects empty names.
func cloneProps(p Properties) (Properties, error) {
	if len(p) == 0 {
		return nil, nil
	}
	out := make(Properties, len(p))
	for name, v := range p {
		if name == "" {
			return nil, fmt.Errorf("empty property name: %w", ErrInvalidFact)
		}
		if v.Kind < KindString || v.Kind > KindBytes {
			return nil, fmt.Errorf("property %q of kind %s: %w", name, v.Kind, ErrInvalidFact)
		}
		if v.Kind == KindBytes {
			v.Bytes = slices.Clone(v.Bytes)
		}
		out[name] = v
	}
	return out, nil
}
