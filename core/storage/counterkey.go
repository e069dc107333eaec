package storage

import "github.com/google/uuid"

// CounterKey is one counter that the processes sharing a store agree on
// with conditional batches (counter.go): the spans shape under the system
// prefix, [nil 32][owner 16][counter 8][id 8]. The owner of a tenant's
// counter is its TenantRecordID; of a deployment-wide one, the nil UUID.
// The spans family held no system rows before, so no facade's range
// reaches a counter. name is never math.MaxUint64: those bytes mark the
// spans family's fact shape, and the key is refused (invalid).
//
//telha:restricted system use the counters of counter.go (ReadTxClock, ReadGeneration, ...) or a facade
func (s SystemScope) CounterKey(owner uuid.UUID, name CounterName, id uint64) (k Key) {
	k.SetCounter(s, owner, name, id)
	return k
}

// SetCounter sets k to SystemScope.CounterKey(owner, name, id).
//
//telha:restricted system use the counters of counter.go (ReadTxClock, ReadGeneration, ...) or a facade
func (k *Key) SetCounter(_ SystemScope, owner uuid.UUID, name CounterName, id uint64) {
	k.setSpan(&TenantScope{}, &owner, uint64(name), id)
	k.n |= systemBit
}

// Counters is every counter of one owner: a tenant's clock, generation
// and vectors sequences (counter.go), in counter order, in one scan.
//
//telha:restricted system use storage.ReadTenantCounters
func (s SystemScope) Counters(owner uuid.UUID) ScanRange {
	var k Key
	return startSystemPrefix(&k, Spans).id(owner).prefixRange()
}
