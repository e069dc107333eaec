package storage

import (
	"encoding/binary"

	"github.com/google/uuid"
)

// The bitmap_index family has five key shapes behind one common prefix
// [scope 32][label hash 8][kind 1], so that all rows of one (tenant, label)
// are one contiguous range.

// setBitmapHead writes the common prefix of a bitmap_index key of length n.
func (k *Key) setBitmapHead(n uint8, s *TenantScope, label LabelHash, kind BitmapKind) {
	k.shrink(n)
	k.family, k.n = BitmapIndex, n
	copy(k.b[0:], s.p[:])
	binary.BigEndian.PutUint64(k.b[32:], uint64(label))
	k.b[bitmapKindOffset] = uint8(kind)
}

// BitmapAllocKey is the row-id watermark of one (tenant, label): 41 bytes.
func BitmapAllocKey(s TenantScope, label LabelHash) (k Key) {
	k.SetBitmapAlloc(s, label)
	return k
}

// SetBitmapAlloc sets k to BitmapAllocKey(s, label).
func (k *Key) SetBitmapAlloc(s TenantScope, label LabelHash) {
	k.setBitmapHead(BitmapAllocKeyLen, &s, label, BitmapAlloc)
}

// BitmapIDMapKey maps a row id to a logical id: [prefix 41][row id 4] = 45 bytes.
func BitmapIDMapKey(s TenantScope, label LabelHash, row uint32) (k Key) {
	k.SetBitmapIDMap(s, label, row)
	return k
}

// SetBitmapIDMap sets k to BitmapIDMapKey(s, label, row).
func (k *Key) SetBitmapIDMap(s TenantScope, label LabelHash, row uint32) {
	k.setBitmapHead(BitmapIDMapKeyLen, &s, label, BitmapIDMap)
	binary.BigEndian.PutUint32(k.b[41:], row)
}

// BitmapRevMapKey maps a logical id to its row id: [prefix 41][logical id 16] = 57 bytes.
func BitmapRevMapKey(s TenantScope, label LabelHash, id uuid.UUID) (k Key) {
	k.SetBitmapRevMap(s, label, id)
	return k
}

// SetBitmapRevMap sets k to BitmapRevMapKey(s, label, id).
func (k *Key) SetBitmapRevMap(s TenantScope, label LabelHash, id uuid.UUID) {
	k.setBitmapHead(BitmapRevMapKeyLen, &s, label, BitmapRevMap)
	copy(k.b[41:], id[:])
}

// BitmapPostingKey holds the posting list of one (property, bucket):
// [prefix 41][property hash 8][bucket hash 8] = 57 bytes.
func BitmapPostingKey(s TenantScope, label LabelHash, property PropertyHash, bucket BucketHash) (k Key) {
	k.SetBitmapPosting(s, label, property, bucket)
	return k
}

// SetBitmapPosting sets k to BitmapPostingKey(s, label, property, bucket).
func (k *Key) SetBitmapPosting(s TenantScope, label LabelHash, property PropertyHash, bucket BucketHash) {
	k.setBitmapHead(BitmapPostingKeyLen, &s, label, BitmapPosting)
	binary.BigEndian.PutUint64(k.b[41:], uint64(property))
	binary.BigEndian.PutUint64(k.b[49:], uint64(bucket))
}

// BitmapPropCounterKey holds the distinct-value counter of one property:
// [prefix 41][property hash 8] = 49 bytes.
func BitmapPropCounterKey(s TenantScope, label LabelHash, property PropertyHash) (k Key) {
	k.SetBitmapPropCounter(s, label, property)
	return k
}

// SetBitmapPropCounter sets k to BitmapPropCounterKey(s, label, property).
func (k *Key) SetBitmapPropCounter(s TenantScope, label LabelHash, property PropertyHash) {
	k.setBitmapHead(BitmapPropCounterKeyLen, &s, label, BitmapPropCounter)
	binary.BigEndian.PutUint64(k.b[41:], uint64(property))
}
