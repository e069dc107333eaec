package storage

import "github.com/google/uuid"

// The bitmap_index family has five key shapes behind one common prefix
// [scope 32][label hash 8][kind 1], so that all rows of one (tenant, label)
// are one contiguous range.

// bitmapHead writes the common prefix of a bitmap_index key of scope s.
func bitmapHead(k *Key, s TenantScope, label LabelHash, kind BitmapKind) encoder {
	e := startKey(k, BitmapIndex)
	e.tenant(s)
	e.u64(uint64(label))
	e.u8(uint8(kind))
	return e
}

// BitmapAllocKey is the row-id watermark of one (tenant, label): 41 bytes.
func BitmapAllocKey(s TenantScope, label LabelHash) (k Key) {
	if !s.IsZero() {
		e := bitmapHead(&k, s, label, BitmapAlloc)
		e.done()
	}
	return k
}

// BitmapIDMapKey maps a row id to a logical id: [prefix 41][row id 4] = 45 bytes.
func BitmapIDMapKey(s TenantScope, label LabelHash, row uint32) (k Key) {
	if !s.IsZero() {
		e := bitmapHead(&k, s, label, BitmapIDMap)
		e.u32(row)
		e.done()
	}
	return k
}

// BitmapRevMapKey maps a logical id to its row id: [prefix 41][logical id 16] = 57 bytes.
func BitmapRevMapKey(s TenantScope, label LabelHash, id uuid.UUID) (k Key) {
	if !s.IsZero() {
		e := bitmapHead(&k, s, label, BitmapRevMap)
		e.id(id)
		e.done()
	}
	return k
}

// BitmapPostingKey holds the posting list of one (property, bucket):
// [prefix 41][property hash 8][bucket hash 8] = 57 bytes.
func BitmapPostingKey(s TenantScope, label LabelHash, property PropertyHash, bucket BucketHash) (k Key) {
	if !s.IsZero() {
		e := bitmapHead(&k, s, label, BitmapPosting)
		e.u64(uint64(property))
		e.u64(uint64(bucket))
		e.done()
	}
	return k
}

// BitmapPropCounterKey holds the distinct-value counter of one property:
// [prefix 41][property hash 8] = 49 bytes.
func BitmapPropCounterKey(s TenantScope, label LabelHash, property PropertyHash) (k Key) {
	if !s.IsZero() {
		e := bitmapHead(&k, s, label, BitmapPropCounter)
		e.u64(uint64(property))
		e.done()
	}
	return k
}
