package storage

import (
	"encoding/binary"

	"github.com/zeebo/xxh3"
)

// Hashes of names. Each kind is its own type so that a label hash cannot be
// passed where an edge type hash is expected. All are xxh3-64 of the name;
// collisions are caught by the registries that persist name-to-hash
// mappings: they fail loud, never merge (docs/design.md, Reserved rows).
type (
	// EdgeTypeHash identifies an edge type in the adjacency families.
	EdgeTypeHash uint64
	// LabelHash identifies a node label in the schema and bitmap_index families.
	LabelHash uint64
	// PropertyHash identifies a property name in the bitmap_index family.
	PropertyHash uint64
	// BucketHash identifies a value bucket (equality bucket or range band) of
	// a property in the bitmap_index family.
	BucketHash uint64
	// ModelID identifies an embedding model: xxh3("vector_model/"+name).
	ModelID uint64
)

// HashEdgeType returns the hash of an edge type name.
func HashEdgeType(name string) EdgeTypeHash { return EdgeTypeHash(xxh3.HashString(name)) }

// HashLabel returns the hash of a node label.
func HashLabel(name string) LabelHash { return LabelHash(xxh3.HashString(name)) }

// HashProperty returns the hash of a property name.
func HashProperty(name string) PropertyHash { return PropertyHash(xxh3.HashString(name)) }

// HashBucket returns the hash of an encoded value bucket.
func HashBucket(bucket []byte) BucketHash { return BucketHash(xxh3.Hash(bucket)) }

// ModelIDOf returns the registry id of the embedding model with this name.
func ModelIDOf(name string) ModelID {
	h := xxh3.New()
	_, _ = h.WriteString("vector_model/")
	_, _ = h.WriteString(name)
	return ModelID(h.Sum64())
}

// edgeTypeNamespace keeps edge type registrations apart from node label
// schema rows in the schema family.
const edgeTypeNamespace = "telha/edge_type/"

// EdgeTypeLabel is the schema label hash under which the registration of
// edge type hash h lives: xxh3(edgeTypeNamespace || be64(h)). Only a 64-bit
// accident can make it equal a node label's hash; the registry's value
// format detects that.
func EdgeTypeLabel(h EdgeTypeHash) LabelHash {
	var buf [len(edgeTypeNamespace) + 8]byte
	n := copy(buf[:], edgeTypeNamespace)
	binary.BigEndian.PutUint64(buf[n:], uint64(h))
	return LabelHash(xxh3.Hash(buf[:]))
}
