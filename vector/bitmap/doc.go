// Package bitmap is the bitmap predicate index: for each (tenant, label) it
// answers "which nodes have property p equal to v" and "which nodes have
// p between lo and hi" with roaring bitmaps, so that a vector search can be
// filtered without reading every node.
//
// # Rows
//
// Each (tenant, label) numbers its nodes with dense 32-bit row ids, because
// roaring bitmaps hold 32-bit integers and compress dense ones best. The
// index keeps five kinds of rows in the bitmap_index family, all under the
// prefix [scope][label hash][kind] so that one label is one contiguous
// range (keys from telha.dev/core/storage):
//
//	alloc        the next unused row id (the watermark); ids are never reused
//	id map       row id -> logical id
//	rev map      logical id -> row id, plus the node's indexed values
//	posting      (property, bucket) -> roaring bitmap of row ids
//	prop counter property -> number of distinct equality buckets, or
//	             Overflow (math.MaxUint32) once the cap was reached
//
// # Buckets
//
// Every property value gets an equality bucket, HashBucket of
// [kind 1][value bytes] (string bytes, int64 and float64 as 8 big-endian
// bytes, bool as 1 byte, bytes as is). Int and float values also get one of
// 16 range bands, HashBucket of [0xB0][kind 1][band 1]; the leading 0xB0 is
// never a kind byte, so band and equality encodings never coincide.
//
// The band function is fixed (it is part of the stored format) and
// monotonic. A value x (an int converted to float64) lies in band i when
// boundaries[i-1] <= x < boundaries[i], with band 0 below boundaries[0] and
// band 15 at or above boundaries[14]:
//
//	band:  0      1     2    3    4    5   6  7  8   9    10   11   12   13   14    15
//	from: -inf  -1e12 -1e6 -1e4 -1e3 -100 -10 0  10  100  1e3  1e4  1e5  1e6  1e9  1e12
//
// Decimal boundaries suit the quantities people store (ages, prices,
// counts). NaN is in no band: it matches equality on itself (bitwise, as
// telha.dev/temporal compares floats) but no range.
//
// # Queries
//
// Equal returns exactly the nodes whose value has the same kind and is
// equal (floats bitwise). Range(lo, hi) returns exactly the nodes whose
// value has the kind of lo and hi and lies in [lo, hi]: it unions the
// bands strictly between band(lo) and band(hi) whole, and re-checks the
// members of the two boundary bands against the values stored in their rev
// map rows. Results are logical ids in row-id order.
//
// Equality buckets are hashes: two distinct values of one property whose
// encodings collide in xxh3-64 would share a posting list. At 2^-64 per pair
// this is accepted, as for the other name hashes of the key layout.
//
// # Distinct-value cap
//
// A property with more than Options.DistinctCap distinct values (a
// timestamp, a name) would grow one posting row per value. When an insert
// would pass the cap the counter becomes Overflow, every equality posting
// of the property is deleted in the same batch, and equality postings are
// no longer kept for it. Afterwards Equal on an int or float property
// answers from its band with a re-check, and Equal on any other kind fails
// with ErrOverflow: the caller must filter another way.
//
// # Time
//
// The index follows each node's current version (valid at the write's
// transaction time, as telha.dev/temporal hands it to Indexer.IndexNode):
// queries answer "now", not "as of". It is maintained in the same batch as
// the node versions, by Index.IndexNode under the temporal store's write
// lock.
package bitmap
