package storage

import "fmt"

// ColumnFamily names one of the column families (Families). The zero
// value is not a family, so a forgotten field never silently selects
// node_versions.
type ColumnFamily uint8

// The column families, in the order the RocksDB engine opens them.
const (
	NodeVersions ColumnFamily = iota + 1
	EdgeVersions
	AdjacencyOut
	AdjacencyIn
	ValidTimeIndex
	TxTimeIndex
	Vectors
	Schema
	Sources
	Spans
	Traces
	Jobs
	BitmapIndex

	// LastFamily is the last family in open order: every bound over the
	// families (a loop, a table indexed by family, the first byte past the
	// last family) says LastFamily, never the family that is last today. A
	// new family is added after it and LastFamily set to it.
	LastFamily = BitmapIndex
)

var familyNames = [LastFamily + 1]string{
	NodeVersions:   "node_versions",
	EdgeVersions:   "edge_versions",
	AdjacencyOut:   "adjacency_out",
	AdjacencyIn:    "adjacency_in",
	ValidTimeIndex: "valid_time_index",
	TxTimeIndex:    "tx_time_index",
	Vectors:        "vectors",
	Schema:         "schema",
	Sources:        "sources",
	Spans:          "spans",
	Traces:         "traces",
	Jobs:           "jobs",
	BitmapIndex:    "bitmap_index",
}

// Families returns every column family in open order. The slice is fresh on
// each call.
func Families() []ColumnFamily {
	out := make([]ColumnFamily, 0, int(LastFamily))
	for cf := NodeVersions; cf <= LastFamily; cf++ {
		out = append(out, cf)
	}
	return out
}

// Valid reports whether cf is one of the 13 families.
func (cf ColumnFamily) Valid() bool { return cf >= NodeVersions && cf <= LastFamily }

// String returns the family's storage name, e.g. "node_versions".
func (cf ColumnFamily) String() string {
	if !cf.Valid() {
		return fmt.Sprintf("ColumnFamily(%d)", uint8(cf))
	}
	return familyNames[cf]
}

// ParseColumnFamily returns the family with the given storage name.
func ParseColumnFamily(name string) (ColumnFamily, error) {
	for cf := NodeVersions; cf <= LastFamily; cf++ {
		if familyNames[cf] == name {
			return cf, nil
		}
	}
	return 0, fmt.Errorf("%w %q", ErrUnknownFamily, name)
}
