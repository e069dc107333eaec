package storage

import "github.com/google/uuid"

// LedgerEntryKey is one entry of the erasure ledger: the sources shape
// under the system prefix, [nil 32][entry id 16][inv recorded at 8]. Entry
// ids are UUIDv7, so the ledger reads in the order it was written. It
// refuses MaxTimestamp, whose inverted bytes are the reserved slot of the
// sources family.
//
//telha:restricted system use the erasure ledger in telha.dev/core/storage/system/ledger
func (s SystemScope) LedgerEntryKey(entry uuid.UUID, recorded Timestamp) (k Key) {
	k.SetLedgerEntry(s, entry, recorded)
	return k
}

// SetLedgerEntry sets k to SystemScope.LedgerEntryKey(entry, recorded).
//
//telha:restricted system use the erasure ledger in telha.dev/core/storage/system/ledger
func (k *Key) SetLedgerEntry(_ SystemScope, entry uuid.UUID, recorded Timestamp) {
	k.setSource(&TenantScope{}, &entry, inverted(recorded))
	k.n |= systemBit
	if recorded == MaxTimestamp {
		k.family = 0
	}
}

// LedgerEntries is every entry of the erasure ledger, in entry id order.
//
//telha:restricted system use the erasure ledger in telha.dev/core/storage/system/ledger
func (s SystemScope) LedgerEntries() ScanRange {
	var k Key
	return startSystemPrefix(&k, Sources).prefixRange()
}

// LedgerEntryHistory is every row of one ledger entry (one, or none).
//
//telha:restricted system use the erasure ledger in telha.dev/core/storage/system/ledger
func (s SystemScope) LedgerEntryHistory(entry uuid.UUID) ScanRange {
	var k Key
	return startSystemPrefix(&k, Sources).id(entry).prefixRange()
}

// Within reports whether every key of r lies in outer: both valid, of one
// family, r's bounds inside outer's. The erasure ledger's replay checks a
// range rebuilt from stored bounds against the tenant the entry names.
func (r ScanRange) Within(outer ScanRange) bool {
	if !r.Valid() || !outer.Valid() || r.family != outer.family || !outer.containsBytes(r.lower) {
		return false
	}
	switch {
	case outer.upper == nil:
		return true
	case r.upper == nil:
		return false
	}
	return string(r.upper) <= string(outer.upper)
}
