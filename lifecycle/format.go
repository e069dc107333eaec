package lifecycle

import (
	"hash"
	"slices"

	"lukechampine.com/blake3"

	"telha.dev/core/storage"
)

// The tenant export format, version 1. One file holds one tenant's rows of
// every column family, written and read as a stream: nothing holds the
// tenant in memory, only one row at a time. Integers are big-endian;
// uvarint is encoding/binary's.
//
//	header  magic "TELHAEXP" (8)
//	        version uint16 = 1
//	        source scope: tenant id (16), organization id (16)
//	        name length uint8, display name (empty if the registry had none)
//	        family count uint8, one byte per family, ascending
//	rows    per row: tag 0x01, family (1), key length uvarint,
//	        value length uvarint, key, value
//	end     tag 0x00
//	trailer per family of the header: its row count uint64
//	        blake3-256 of every byte before it (32)
//
// Rows come family by family in the header's order and, within a family,
// in ascending key order, as the engine scans them; a key is the stored
// key, scope included, and must carry the header's scope. The file ends
// with the checksum: a byte after it is an error. The same rows exported
// from the same scope give the same file, byte for byte.

// exportMagic starts every tenant export.
const exportMagic = "TELHAEXP"

// exportVersion is the format version written, and the only one read.
const exportVersion = 1

// The frame tags.
const (
	tagEnd byte = 0x00
	tagRow byte = 0x01
)

// checksumLen is the length of the trailer's blake3 sum.
const checksumLen = 32

// maxFrameValue is the longest value a row frame may declare: the longest
// value an engine stores.
const maxFrameValue = storage.MaxValueLen

// exportFamilies are the families a version-1 export holds: all of them.
func exportFamilies() []storage.ColumnFamily { return slices.Clone(storage.Families()) }

// newSum returns the hash of the trailer's checksum: blake3-256.
func newSum() hash.Hash { return blake3.New(checksumLen, nil) }
