package storage

import "github.com/google/uuid"

// The bitmap_index family has five key shapes behind one common prefix
// [scope 32][label hash 8][kind 1], so that all rows of one (tenant, label)
// are one contiguous range.

func bitmapKey(s TenantScope, label LabelHash, kind BitmapKind) (encoder, bool) {
	if s.IsZero() {
		return encoder{}, false
	}
	e := encoder{k: Key{family: BitmapIndex}}
	e.scope(s.prefix())
	e.u64(uint64(label))
	e.u8(uint8(kind))
	return e, true
}

// BitmapAllocKey is the row-id watermark of one (tenant, label): 41 bytes.
func BitmapAllocKey(s TenantScope, label LabelHash) Key {
	e, _ := bitmapKey(s, label, BitmapAlloc)
	return e.k
}

// BitmapIDMapKey maps a row id to a logical id: [prefix 41][row id 4] = 45 bytes.
func BitmapIDMapKey(s TenantScope, label LabelHash, row uint32) Key {
	e, ok := bitmapKey(s, label, BitmapIDMap)
	if ok {
		e.u32(row)
	}
	return e.k
}

// BitmapRevMapKey maps a logical id to its row id: [prefix 41][logical id 16] = 57 bytes.
func BitmapRevMapKey(s TenantScope, label LabelHash, id uuid.UUID) Key {
	e, ok := bitmapKey(s, label, BitmapRevMap)
	if ok {
		e.raw(id[:])
	}
	return e.k
}

// BitmapPostingKey holds the posting list of one (property, bucket):
// [prefix 41][property hash 8][bucket hash 8] = 57 bytes.
func BitmapPostingKey(s TenantScope, label LabelHash, property PropertyHash, bucket BucketHash) Key {
	e, ok := bitmapKey(s, label, BitmapPosting)
	if ok {
		e.u64(uint64(property))
		e.u64(uint64(bucket))
	}
	return e.k
}

// BitmapPropCounterKey holds the distinct-value counter of one property:
// [prefix 41][property hash 8] = 49 bytes.
func BitmapPropCounterKey(s TenantScope, label LabelHash, property PropertyHash) Key {
	e, ok := bitmapKey(s, label, BitmapPropCounter)
	if ok {
		e.u64(uint64(property))
	}
	return e.k
}
